-- The World and Fortune tables of TFB's Postgres image (docs/tfb-rules.md §8), loaded or reloaded to a pristine state.
-- Run by scripts/db.sh as the cluster superuser; the tables end up owned by benchmarkdbuser.
-- TRUNCATE + INSERT rather than DROP + CREATE so a running server keeps its prepared statements valid.
-- The file is UTF-8: the em dashes (U+2014) and the Japanese message must reach the database as those exact characters.
SET client_encoding = 'UTF8';
SET client_min_messages = warning;
SET ROLE benchmarkdbuser;

BEGIN;

CREATE TABLE IF NOT EXISTS world (
    id integer NOT NULL PRIMARY KEY,
    randomnumber integer NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS fortune (
    id integer NOT NULL PRIMARY KEY,
    message varchar(2048) NOT NULL
);

-- TFB's create-postgres.sql also makes the quoted "World" and "Fortune", with the same columns, and entries use
-- either spelling; TFB's verifier reads "World" before and after its update check, so a database without it fails
-- that check however the server behaves. Loaded here as copies of world and fortune, so the two spellings start
-- equal (TFB fills its "World" with random numbers of its own; nothing here depends on the copy).
CREATE TABLE IF NOT EXISTS "World" (
    id integer NOT NULL PRIMARY KEY,
    randomnumber integer NOT NULL DEFAULT 0
);

CREATE TABLE IF NOT EXISTS "Fortune" (
    id integer NOT NULL PRIMARY KEY,
    message varchar(2048) NOT NULL
);

TRUNCATE world, fortune, "World", "Fortune";

-- Same distribution as TFB's create-postgres.sql: 1..10000, the least() guards against random() edge cases.
INSERT INTO world (id, randomnumber)
SELECT x.id, least(floor(random() * 10000 + 1), 10000)
FROM generate_series(1, 10000) AS x(id);

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

INSERT INTO "World" (id, randomnumber) SELECT id, randomnumber FROM world;
INSERT INTO "Fortune" (id, message) SELECT id, message FROM fortune;

COMMIT;

RESET ROLE;
VACUUM ANALYZE world;
VACUUM ANALYZE fortune;
VACUUM ANALYZE "World";
VACUUM ANALYZE "Fortune";
