#!/bin/sh
# The image's entry: keep the SQLite database on the /data volume, then run the command (tablebot)
# in this process's place (exec), so that `docker stop`'s SIGTERM reaches it.
#
# `docker run --env-file .env` passes TABLEBOT_DB as .env has it, over the image's
# /data/tablebot.db: empty means the image's; a relative path would put the database in the
# working directory, outside the volume, gone when the container is recreated: refused.
set -eu
if [ -z "${TABLEBOT_DB:-}" ]; then
    TABLEBOT_DB=/data/tablebot.db
fi
case "$TABLEBOT_DB" in
    /* | postgresql://* | postgres://* | POSTGRESQL://* | POSTGRES://*) ;;
    *)
        echo "tablebot: TABLEBOT_DB=$TABLEBOT_DB is a relative path, outside the /data volume: the database would be lost with the container. Leave TABLEBOT_DB unset (the image uses /data/tablebot.db) or give a path on a volume, e.g. TABLEBOT_DB=/data/tablebot.db." >&2
        exit 2
        ;;
esac
export TABLEBOT_DB
exec "$@"
