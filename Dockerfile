# The covgate reference server (`@covgate/server`) as a container image, installed from the same
# npm tarballs users install. Build from a clone of the repository:
#
#   pnpm install --frozen-lockfile && pnpm run build
#   deploy/container/pack-packages.sh              # the tarballs into deploy/container/packages/
#   docker build -t covgate-server .
#
# NODE_IMAGE is the base of both stages: the current Node.js LTS slim image by default; any
# Debian-based image with Node.js >= 20 and npm on PATH works (CI passes one it builds itself).
ARG NODE_IMAGE=node:24-bookworm-slim

# --- install: the packed tarballs and their production dependencies, nothing else ------------
FROM ${NODE_IMAGE} AS install
WORKDIR /opt/covgate
COPY deploy/container/packages/*.tgz /tmp/packages/
# Every dependency ships prebuilt (libsql, argon2): no compiler is needed and none is installed.
RUN npm install --omit=dev --no-audit --no-fund --no-update-notifier --loglevel=error \
      /tmp/packages/*.tgz \
 && npm cache clean --force \
 && test -x node_modules/.bin/covgate-server \
 && test -x node_modules/.bin/covgate-admin

# --- runtime: Node.js, the installed server, a non-root user and the /data volume ------------
FROM ${NODE_IMAGE}
LABEL org.opencontainers.image.title="covgate-server" \
      org.opencontainers.image.description="The covgate reference self-hosted server" \
      org.opencontainers.image.source="https://github.com/covgate/covgate" \
      org.opencontainers.image.licenses="MIT"
RUN groupadd --system --gid 10001 covgate \
 && useradd --system --uid 10001 --gid covgate --home-dir /data --no-create-home \
      --shell /usr/sbin/nologin covgate \
 && mkdir -p /data && chown covgate:covgate /data && chmod 0700 /data
COPY --from=install /opt/covgate /opt/covgate
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    COVGATE_DATA_DIR=/data \
    PATH=/opt/covgate/node_modules/.bin:$PATH
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
EXPOSE 8080
# Ready means the store answers (503 while it does not, or while draining on SIGTERM).
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT||8080}/health/ready`).then((r)=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and receives SIGTERM itself (the server drains, then exits 0).
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "/opt/covgate/node_modules/@covgate/server/dist/main.js"]
