-- The W3C traceparent of the request that created a task (a publish), so the worker's spans for it
-- continue the publisher's trace (docs/operations.md, "Traces"). NULL when tracing was off at the
-- web process, for tasks created by anything but a publish, and for every task before this column.
ALTER TABLE "index_tasks" ADD COLUMN "trace_parent" TEXT;
