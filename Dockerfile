# Pigeonhole as a service image (Docker Engine 25 or newer, or Podman 5). There is no Docker
# engine where Pigeonhole is developed, so every command here is one that docs/running.md gives
# ("Without Docker, as the image runs") and CI runs: test/cli/dockerfile.test.ts keeps the two
# in lock-step and replays the runtime stage.

# Install everything and build (the server, the typed client and the inbox UI: `npm run build`).
# npm's cache is a build cache mount, never a layer: the runtime stage's install reuses it.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime: production dependencies and the build, run as the unprivileged `node` user (uid 1000).
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    PIGEONHOLE_HOST=0.0.0.0 \
    PIGEONHOLE_DATA_DIR=/data
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY fixtures/sample-config.json ./fixtures/sample-config.json
# The volume's mount point must belong to the user the server runs as, or it cannot write.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8025 1025
# Checked every second until the first success (the server is ready about a second after the
# container starts, so compose dependents start at once), then every 30 s: each check is a Node
# process (about half a second of CPU). Older builders do not know --start-interval.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --start-interval=1s --retries=3 CMD ["node", "dist/server/main.js", "healthcheck"]
# Exec form: node is PID 1 and gets SIGTERM itself (the server handles it: drain, flush, exit 0).
CMD ["node", "dist/server/main.js"]
