-- Every reflector and curator run asks, before it proposes, whether an earlier attempt already did
-- (server/runs/repository.ts deltaOfRun: evidence @> {"runIds": [id]}). Without an index that was a
-- scan of every delta of every playbook, one per run: 137 ms at 200,000 deltas on PGlite.
-- fastupdate off: a run writes one delta, and a lookup then reads the index alone. With the pending
-- list (PGlite has no autovacuum to empty it) a lookup also read up to 4 MB of it: 14 ms.

-- CreateIndex
CREATE INDEX "Delta_evidence_idx" ON "Delta" USING GIN ("evidence" jsonb_path_ops) WITH (fastupdate = off);
