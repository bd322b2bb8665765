# Pigeonhole as a service image (any Docker Engine with BuildKit, or Podman 4.3 and newer). There
# is no Docker engine where Pigeonhole is developed, so every command here is one that
# docs/running.md gives ("Without Docker, as the image runs") and CI runs:
# test/cli/dockerfile.test.ts keeps the two in lock-step and replays the runtime stage. The image
# itself is built and run with Podman (docs/containers.md says what was verified how).

# Install everything and build (the server, the typed client and the inbox UI: `npm run build`).
# npm's cache is a build cache mount, never a layer: the runtime stage's install reuses it.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
RUN npm run build

# Runtime: the production dependencies and the build, nothing else (no sources, tests or docs),
# run as the unprivileged `node` user (uid 1000). `--omit=optional` as well as `--omit=dev`:
# html-validate names vitest and jest as optional peers, and npm keeps a package that is both a
# dev dependency and an optional peer (vitest, and through it vite, rolldown, esbuild,
# lightningcss: 55 MB) unless optional packages are left out too. No production dependency has
# an optional dependency of its own (the test checks the lockfile for that).
FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production \
    PIGEONHOLE_HOST=0.0.0.0 \
    PIGEONHOLE_DATA_DIR=/data
COPY package.json package-lock.json ./
RUN --mount=type=cache,target=/root/.npm npm ci --omit=dev --omit=optional --no-audit --no-fund
COPY --from=build /app/dist ./dist
# The sample configuration (public keys such as test-key), so `docker run` works as it is; mount
# your own file and point PIGEONHOLE_CONFIG at it for anything shared (docs/running.md).
COPY fixtures/sample-config.json ./fixtures/sample-config.json
# The agent skill the MCP server serves (docs/mcp.md, The skill).
COPY skills ./skills
# The volume's mount point must belong to the user the server runs as, or it cannot write.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8025 1025
# GET /readyz on loopback (the port from PIGEONHOLE_HTTP_PORT), with Node's own fetch: the image
# has no curl, and this costs about 0.1 s of CPU where `node dist/server/main.js healthcheck`
# (which loads the whole server) costs 0.5 s. Every 5 s, so compose dependents start about 5 s
# after the container; there is no --start-interval (probe fast until the first success): Docker
# Engine before 25 and Podman before 5 refuse it (`flag provided but not defined:
# -start-interval`). On Docker 25 and newer, add `start_interval` in compose (docs/containers.md).
HEALTHCHECK --interval=5s --timeout=3s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PIGEONHOLE_HTTP_PORT||8025)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself (the server handles it: drain, flush, exit 0).
# The flag holds V8's young generation to 4 MB semispaces, as on every launch (docs/running.md).
CMD ["node", "--max-semi-space-size=4", "dist/server/main.js"]
