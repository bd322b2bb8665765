# syntax=docker/dockerfile:1
# Pigeonhole as a service image. There is no Docker engine where Pigeonhole is developed, so
# every command here is one the README gives ("Without Docker, as the image runs") and CI runs:
# test/cli/dockerfile.test.ts keeps the two in lock-step and replays the runtime stage.

# Install everything and build (the server, and the inbox UI when there is one: `npm run build`).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime: production dependencies and the build, run as the unprivileged `node` user.
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    PIGEONHOLE_HOST=0.0.0.0 \
    PIGEONHOLE_DATA_DIR=/data
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY fixtures/sample-config.json ./fixtures/sample-config.json
# The volume's mount point must belong to the user the server runs as, or it cannot write.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8025 1025
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["node", "dist/server/main.js", "healthcheck"]
# Exec form: node is PID 1 and gets SIGTERM itself (the server handles it: drain, flush, exit 0).
CMD ["node", "dist/server/main.js"]
