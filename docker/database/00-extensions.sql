-- pg_stat_statements, which TFB's harness reads to count queries (docs/tfb-rules.md §6); preloaded by the image's CMD.
CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
