-- A task's claim and completion each write a new version of its row. Where the page has no room
-- for it, the version goes to another page: two heap pages and the free space map touched, the
-- old version locked in the WAL while the new page is found (an extra record), and under load the
-- relation's extension lock. Tasks are inserted in bulk (a publish, a reindex), so their pages
-- were full from the start and most versions moved (1.2 of 2 per task in bench/queue-cost.ts).
-- With 15% of each new page left free they stay on it: 300 of 300 tasks run one at a time, and
-- with 10 claimers the WAL's lock records per task fall from 1.9-2.1 to 1.5 (pruning frees the
-- room once the versions before are dead to every snapshot). Only rows inserted from now on are
-- affected; the cost is ~18% more heap pages for tasks written after it.
ALTER TABLE "index_tasks" SET (fillfactor = 85);
