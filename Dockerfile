# Build a wheel in a throwaway stage, so no build tools reach the final image.
FROM python:3.11-slim AS build
WORKDIR /src
COPY pyproject.toml README.md LICENSE ./
COPY bot ./bot
COPY engines ./engines
COPY render ./render
RUN pip wheel --no-cache-dir --wheel-dir /wheels .

FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    TABLEBOT_DB=/data/tablebot.db
COPY --from=build /wheels /wheels
COPY docker/entrypoint.sh /usr/local/bin/tablebot-entrypoint
RUN pip install --no-cache-dir /wheels/*.whl && rm -rf /wheels \
    && chmod 755 /usr/local/bin/tablebot-entrypoint \
    && useradd --create-home --uid 10001 tablebot \
    && mkdir /data && chown tablebot:tablebot /data
USER tablebot
WORKDIR /home/tablebot
VOLUME ["/data"]
# The entry keeps the database on /data (it refuses a relative TABLEBOT_DB) and execs the
# command, so tablebot is process 1 and gets docker stop's SIGTERM: it finishes the action in
# flight, closes the database and exits 0.
ENTRYPOINT ["tablebot-entrypoint"]
CMD ["tablebot"]
