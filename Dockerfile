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
# The gnubg wheel exists for linux/amd64 only: elsewhere (linux/arm64: a Raspberry Pi, ARM
# clouds) the robot uses Debian's GNU Backgammon through bot/robot/gnubg_system.py, with its
# two-sided bear-off database built as the wheel has it (docs/operations.md).
RUN if [ "$(dpkg --print-architecture)" != amd64 ]; then \
      echo "gnubg gnubg/build-bearoffs boolean true" | debconf-set-selections \
      && apt-get update \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends gnubg \
      && rm -rf /var/lib/apt/lists/*; \
    fi
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
