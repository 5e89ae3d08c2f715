# syntax=docker/dockerfile:1
# The one Sous image. Its entry point (deploy/sous-entrypoint) takes the role as the command:
#   daemon | proxy | context | worker
# so one build serves every container of the server topology (docs/deployment.md):
#   docker build -t sous:local .
#   docker run --rm sous:local proxy
# Dockerfile.daemon, Dockerfile.proxy and Dockerfile.context are thin role wrappers FROM this image.
#
# Base images are pinned to exact versions; pin digests too with `docker buildx imagetools inspect
# node:22.23.3-bookworm-slim` (docs/deployment.md, "Pinning images"); Renovate or Dependabot bump them.

# 1. Only the package manifests, so `npm ci` stays cached until a dependency changes.
FROM node:22.23.3-bookworm-slim AS manifests
WORKDIR /src
COPY package.json package-lock.json ./
COPY shared ./shared
COPY services ./services
RUN mkdir /manifests && cp package.json package-lock.json /manifests/ \
 && find shared services -mindepth 2 -maxdepth 2 -name package.json -exec cp --parents {} /manifests/ \;

# 2. Install exactly the lockfile, build every workspace, then drop dev dependencies.
FROM node:22.23.3-bookworm-slim AS build
WORKDIR /app
COPY --from=manifests /manifests/ ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.base.json tsconfig.build.json ./
COPY shared ./shared
COPY services ./services
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# 3. Runtime: git (Sous reads the repository history) and CA certificates (HTTPS model backends).
#    Code is owned by root and read-only to the process, which runs as the unprivileged "node" user
#    (uid 1000). Nothing at run time writes outside /var/lib/sous (the state volume) and /tmp, so the
#    container runs with a read-only root file system. The repository is mounted read-only at /repo,
#    owned by some other uid, hence safe.directory; GIT_OPTIONAL_LOCKS=0 stops git from trying to
#    refresh its index there.
FROM node:22.23.3-bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends git ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && git config --system --add safe.directory /repo \
 && mkdir -p /var/lib/sous && chown node:node /var/lib/sous
ENV NODE_ENV=production \
    SOUS_PATH=/repo \
    SOUS_STATE_DIR=/var/lib/sous \
    SOUS_HOST=0.0.0.0 \
    GIT_OPTIONAL_LOCKS=0
WORKDIR /app
COPY --from=build /app ./
COPY deploy/sous-entrypoint ./deploy/sous-entrypoint
# The licence and the notices of the production tree this image keeps (THIRD_PARTY_NOTICES.md also
# points to the Debian copyright files under /usr/share/doc).
COPY LICENSE THIRD_PARTY_NOTICES.md ./
LABEL org.opencontainers.image.licenses="Apache-2.0"
USER node
# Liveness over loopback (Host 127.0.0.1:<port> always passes the Host allowlist). SOUS_PORT and
# SOUS_HEALTH_PATH are set per role (compose, or the Dockerfile.<role> wrappers); the defaults are
# the daemon's port and the /healthz every HTTP role answers. The worker has no port: compose
# disables the check for it, and its watchdog restarts it when it exits.
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.SOUS_PORT || 8473) + (process.env.SOUS_HEALTH_PATH || '/healthz'), { signal: AbortSignal.timeout(4000) }).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/app/deploy/sous-entrypoint"]
CMD ["daemon"]
