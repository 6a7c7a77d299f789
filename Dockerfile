# The diagnose bot: `docker build -t diagnose-bot .`
#   Socket Mode: docker run -e SLACK_BOT_TOKEN=xoxb-… -e SLACK_APP_TOKEN=xapp-… diagnose-bot
#   HTTP mode:   docker run -p 3000:3000 -e SLACK_BOT_TOKEN=xoxb-… -e SLACK_SIGNING_SECRET=… \
#                  diagnose-bot bot --http --port 3000
# Run this way (one machine) the bot starts its worker as a child process and both stop together,
# so give it a restart policy (--restart unless-stopped) and a volume for /var/lib/diagnose (the
# queue and the state). On Kubernetes the chart runs `bot --role web` and `bot --role worker` as
# containers of their own. Without DIAGNOSE_POLICY it answers from the built-in demo bundles only.
# Tokens come from the environment (or your orchestrator's secrets), never from the image.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    DIAGNOSE_STATE_DIR=/var/lib/diagnose

WORKDIR /src
COPY requirements/lock.txt ./requirements/lock.txt
COPY pyproject.toml README.md ./
COPY diagnosis ./diagnosis
COPY blocks ./blocks
COPY bot ./bot
COPY cli ./cli
COPY simulator ./simulator
# The runtime dependencies and the charts extra (matplotlib: the memory and scan charts posted in
# threads) at the versions pinned in the lock, the same pins `make` installs.
RUN pip install -c requirements/lock.txt '.[charts]' && rm -rf /src

# A non-root user; the only writable place is the state directory (SQLite; use REDIS_URL for replicas).
RUN groupadd --system --gid 10001 diagnose \
    && useradd --system --uid 10001 --gid diagnose --home-dir /home/diagnose --create-home diagnose \
    && mkdir -p /var/lib/diagnose \
    && chown diagnose:diagnose /var/lib/diagnose
USER 10001:10001
WORKDIR /home/diagnose
VOLUME ["/var/lib/diagnose"]
EXPOSE 3000

ENTRYPOINT ["diagnose"]
CMD ["bot"]
