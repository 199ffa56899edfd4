-- Every GIN index writes its entries at once, none to a pending list (fastupdate off), as
-- "Delta_evidence_idx" already does. The pending list is emptied by vacuum, and embedded PGlite never
-- vacuums: every version (a reflection's counter tags included, one per trace) and every run added to
-- a list that each lookup reads whole. On PGlite, 3,000 versions of a 2,000-bullet playbook took a
-- bullet's history (bulletLineage, operations @> …) from 7.6 to 18.9 ms, and the list grows to 4 MB
-- before an insert empties it at once. Written at once, the history stayed at 6.5–7.1 ms, edits took
-- no longer, and the index was 0.95 MB instead of 3.2.
-- gin_clean_pending_list moves what a database holds pending into the index now.

ALTER INDEX "PlaybookVersion_operations_idx" SET (fastupdate = off);
SELECT gin_clean_pending_list('"PlaybookVersion_operations_idx"'::regclass);

ALTER INDEX "Run_traceIds_idx" SET (fastupdate = off);
SELECT gin_clean_pending_list('"Run_traceIds_idx"'::regclass);
