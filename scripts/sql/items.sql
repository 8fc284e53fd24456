-- HttpArena's items table (its async-database profile: 100,000 rows, no index on price), generated here rather than
-- loaded from the venue's seed file: the same columns and types, and values drawn from the same ranges as its
-- generator (price 1..500, quantity 1..1000, rating score 1..50 and count 1..500, one to four distinct tags, names
-- "<product> <id>"). Deterministic: setseed makes every load the same rows. Run by scripts/db.sh as the cluster
-- superuser; the table ends up owned by benchmarkdbuser. TRUNCATE + INSERT, so a running server's statements stay valid.
SET client_min_messages = warning;
SET ROLE benchmarkdbuser;

BEGIN;

CREATE TABLE IF NOT EXISTS items (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    category TEXT NOT NULL,
    price INTEGER NOT NULL,
    quantity INTEGER NOT NULL,
    active BOOLEAN NOT NULL,
    tags JSONB NOT NULL,
    rating_score INTEGER NOT NULL,
    rating_count INTEGER NOT NULL
);
-- No index on price, as in the venue: the range query scans.

TRUNCATE items;

SELECT setseed(0.42);

WITH words AS (
    SELECT ARRAY['Alpha Widget', 'Pro Valve', 'Core Relay', 'Edge Link', 'Nano Gadget',
                 'Ultra Driver', 'Swift Switch', 'Prime Gear', 'Flex Module', 'Hyper Node'] AS products,
           ARRAY['auto', 'books', 'clothing', 'electronics', 'garden', 'home', 'office', 'sports', 'tools', 'toys'] AS categories,
           ARRAY['compact', 'eco', 'fast', 'heavy-duty', 'limited', 'new', 'popular', 'premium', 'sale', 'wireless'] AS tags
),
draws AS (
    -- One row of random draws per item; random() is evaluated per row, in id order, after setseed.
    SELECT g.id,
           1 + floor(random() * 10)::int AS product,
           1 + floor(random() * 10)::int AS category,
           1 + floor(random() * 500)::int AS price,
           1 + floor(random() * 1000)::int AS quantity,
           random() < 0.5 AS active,
           1 + floor(random() * 4)::int AS tag_count,
           floor(random() * 10)::int AS tag_start,
           1 + floor(random() * 3)::int AS tag_step,
           1 + floor(random() * 50)::int AS rating_score,
           1 + floor(random() * 500)::int AS rating_count
    FROM generate_series(1, 100000) AS g(id)
    ORDER BY g.id
)
INSERT INTO items (id, name, category, price, quantity, active, tags, rating_score, rating_count)
SELECT d.id,
       w.products[d.product] || ' ' || d.id,
       w.categories[d.category],
       d.price,
       d.quantity,
       d.active,
       -- tag_count distinct tags: steps of 1, 2 or 3 through the ten tags (coprime with 10 for 1 and 3; 2 never
       -- repeats within four steps), starting at a random one.
       (SELECT jsonb_agg(w.tags[1 + (d.tag_start + k * d.tag_step) % 10] ORDER BY k) FROM generate_series(0, d.tag_count - 1) AS k),
       d.rating_score,
       d.rating_count
FROM draws AS d CROSS JOIN words AS w;

COMMIT;

ANALYZE items;
