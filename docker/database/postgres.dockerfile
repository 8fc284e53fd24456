# PostgreSQL as TFB's tfb-database runs it (docs/tfb-rules.md §8): postgres 18, the hello_world database owned by the
# benchmarkdbuser superuser, TFB's server settings, pg_stat_statements (TFB's query-count checks read it), and the
# World and Fortune data, loaded by the image's entrypoint on the first start.
FROM postgres:18-trixie

ENV POSTGRES_DB=hello_world
ENV POSTGRES_USER=benchmarkdbuser
ENV POSTGRES_PASSWORD=benchmarkdbpass

# The entrypoint runs these in name order, as POSTGRES_USER on POSTGRES_DB.
# Built from the repository root (see compose.yaml), so the image loads the very file scripts/db.sh loads.
COPY docker/database/00-extensions.sql /docker-entrypoint-initdb.d/00-extensions.sql
COPY scripts/sql/hello_world.sql /docker-entrypoint-initdb.d/10-hello_world.sql

EXPOSE 5432

# TFB's postgresql.conf settings that matter to the tests; wal_level=minimal requires max_wal_senders=0.
CMD ["postgres", \
     "-c", "max_connections=2000", \
     "-c", "ssl=off", \
     "-c", "shared_buffers=256MB", \
     "-c", "work_mem=64MB", \
     "-c", "effective_cache_size=8GB", \
     "-c", "synchronous_commit=off", \
     "-c", "wal_level=minimal", \
     "-c", "max_wal_senders=0", \
     "-c", "shared_preload_libraries=pg_stat_statements", \
     "-c", "pg_stat_statements.track=all", \
     "-c", "pg_stat_statements.max=500000"]
