# Doco's production image: built in one stage, run non-root from a slim one.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json tsconfig.json tsconfig.build.json tsconfig.hook.json ./
# npm ci's postinstall mends postgres.js until a release has its fixes (scripts/patch-postgres.cjs);
# its prepare script builds what tsconfig.build.json includes: the benchmarks and the eval too, with
# the loopback fakes and the agent runner they import from test/.
COPY scripts scripts
COPY bin bin
COPY src src
COPY bench bench
COPY eval eval
COPY test/helpers test/helpers
COPY test/agents test/agents
COPY migrations migrations
COPY sql sql
# `npm ci` builds dist/ through the prepare script; then drop the dev dependencies.
RUN npm ci && npm prune --omit=dev

FROM node:20-bookworm-slim
# glibc's allocator: one arena for every thread, and large blocks always mapped on their own, so
# the memory the index's build and the scan workers free goes back to the system instead of
# staying in per-thread arenas (docs/production.md, "Memory").
ENV NODE_ENV=production \
    DOCO_HOST=0.0.0.0 \
    DOCO_PORT=8787 \
    DOCO_HOME=/data \
    MALLOC_ARENA_MAX=1 \
    MALLOC_MMAP_THRESHOLD_=131072
WORKDIR /app
COPY --from=build --chown=node:node /app/package.json ./
COPY --from=build --chown=node:node /app/node_modules node_modules
COPY --from=build --chown=node:node /app/dist dist
COPY --from=build --chown=node:node /app/bin bin
COPY --from=build --chown=node:node /app/migrations migrations
COPY --from=build --chown=node:node /app/sql sql
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:'+(process.env.DOCO_PORT||8787)+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
ENTRYPOINT ["node", "bin/doco.js"]
CMD ["serve"]
