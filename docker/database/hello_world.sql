-- The TFB schema and data (tfb-rules.md §8) for the docker/ database image: world (10000 rows) and fortune (12 rows).
-- DUPLICATION: scripts/sql/hello_world.sql (scripts/db.sh, on the database branch) loads the same tables for the
-- local cluster. Once both are on one branch, make this image load that file and delete this one; until then a
-- test checks that the fortune rows here are exactly TFB's (and, when that file exists, the same as there).
-- The file is UTF-8: the em dashes (U+2014) and the Japanese message must reach the database as those characters.
SET client_encoding = 'UTF8';

CREATE EXTENSION IF NOT EXISTS pg_stat_statements;

CREATE TABLE world (
    id integer NOT NULL PRIMARY KEY,
    randomnumber integer NOT NULL DEFAULT 0
);

CREATE TABLE fortune (
    id integer NOT NULL PRIMARY KEY,
    message varchar(2048) NOT NULL
);

-- TFB's distribution: 1..10000 (least() guards against random() returning exactly 1.0 after rounding).
INSERT INTO world (id, randomnumber)
SELECT i, least(floor(random() * 10000 + 1), 10000)
FROM generate_series(1, 10000) AS i;

INSERT INTO fortune (id, message) VALUES
    (1, 'fortune: No such file or directory'),
    (2, 'A computer scientist is someone who fixes things that aren''t broken.'),
    (3, 'After enough decimal places, nobody gives a damn.'),
    (4, 'A bad random number generator: 1, 1, 1, 1, 1, 4.33e+67, 1, 1, 1'),
    (5, 'A computer program does what you tell it to do, not what you want it to do.'),
    (6, 'Emacs is a nice operating system, but I prefer UNIX. — Tom Christaensen'),
    (7, 'Any program that runs right is obsolete.'),
    (8, 'A list is only as strong as its weakest link. — Donald Knuth'),
    (9, 'Feature: A bug with seniority.'),
    (10, 'Computers make very fast, very accurate mistakes.'),
    (11, '<script>alert("This should not be displayed in a browser alert box.");</script>'),
    (12, 'フレームワークのベンチマーク');

VACUUM ANALYZE world;
VACUUM ANALYZE fortune;
