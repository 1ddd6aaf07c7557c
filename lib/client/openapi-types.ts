// Generated from lib/client/openapi.json by `npm run openapi` (openapi-typescript); do not edit.
// test/api/openapi-files.test.ts fails when this file is older than the API.

export type paths = {
    "/api/health": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Liveness and database reachability
         * @description Public: no credentials needed.
         */
        get: operations["health"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/openapi.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * This document
         * @description Public: no credentials needed.
         */
        get: operations["openapi"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/signin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open a session with a token or an email and password
         * @description Sets the session cookie. Failed attempts are throttled per client address and per account.
         *
         *     Public: no credentials needed.
         */
        post: operations["signIn"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/signout": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * End the session (server-side)
         * @description Public: no credentials needed.
         */
        post: operations["signOut"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/start": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Send the browser to the identity provider
         * @description Public: no credentials needed.
         */
        get: operations["oidcStart"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/auth/oidc/callback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The identity provider's redirect back
         * @description Public: no credentials needed.
         */
        get: operations["oidcCallback"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/metrics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Prometheus metrics
         * @description Role operator or above, or a token with the metrics:read capability. Fleet-wide: all-tenant callers only (403 FLEET_SCOPE_REQUIRED).
         */
        get: operations["metrics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/overview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Queue, drift, latency and fleet figures
         * @description Role viewer or above. Answers cover the caller's tenants only.
         */
        get: operations["getOverview"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/overview/activity": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Throughput by outcome and backlog history over a range
         * @description Role viewer or above. Answers cover the caller's tenants only.
         */
        get: operations["getOverviewActivity"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/workers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Worker processes, live ones first
         * @description Role viewer or above. Fleet-wide: all-tenant callers only (403 FLEET_SCOPE_REQUIRED).
         */
        get: operations["listWorkers"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Tenants the caller holds
         * @description Role viewer or above. Answers cover the caller's tenants only.
         */
        get: operations["listTenants"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/documents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Documents, newest change first
         * @description Role viewer or above. Answers cover the caller's tenants only.
         */
        get: operations["listDocuments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Tasks, newest first
         * @description Role viewer or above. Answers cover the caller's tenants only.
         */
        get: operations["listTasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/documents/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The documents list as CSV or JSON
         * @description Every page of the list with the same filters, streamed. CSV cells that a spreadsheet would run as a formula (starting with = + - @) get a leading apostrophe.
         *
         *     Role viewer or above. Answers cover the caller's tenants only.
         */
        get: operations["exportDocuments"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tasks list as CSV or JSON
         * @description Every page of the list with the same filters, streamed; CSV cells are protected against formula injection.
         *
         *     Role viewer or above. Answers cover the caller's tenants only.
         */
        get: operations["exportTasks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{taskId}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A task and its timeline
         * @description Role viewer or above. Within the caller's tenants: an id in another tenant is 404.
         */
        get: operations["getTask"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{taskId}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry a DEAD task with a fresh attempt budget
         * @description Role operator or above. Within the caller's tenants: an id in another tenant is 404.
         */
        post: operations["retryTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{taskId}/force-done": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Close a DEAD task as RESOLVED
         * @description Stops retrying: the task ends RESOLVED and the drift it leaves shows as acknowledged. A DELETE task whose document still stands deleted at its version does the delete's work in the same transaction (the search pointer dropped, the index versions retired for garbage collection), so its chunks are not kept for good.
         *
         *     Role operator or above. Within the caller's tenants: an id in another tenant is 404.
         */
        post: operations["forceDoneTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry every DEAD task matching a filter
         * @description Role operator or above. Answers cover the caller's tenants only.
         */
        post: operations["retryTasks"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tasks/{taskId}/cancel": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Cancel a PENDING or RETRY_WAIT task
         * @description The task ends CANCELLED with the reason on its timeline and as its error message (OPERATOR_CANCELLED); a retry revives it. A RUNNING task, a finished one and any DELETE task are refused with TASK_NOT_CANCELLABLE.
         *
         *     Role operator or above. Within the caller's tenants: an id in another tenant is 404.
         */
        post: operations["cancelTask"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pauses": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Active pauses
         * @description Pauses of the caller's tenants, and every task-type pause (it holds the caller's work too).
         *
         *     Role viewer or above. Answers cover the caller's tenants only.
         */
        get: operations["listPauses"];
        put?: never;
        /**
         * Pause a tenant's or a task type's processing
         * @description Workers stop claiming the named tasks at once (running ones finish). A tenant pause needs that tenant in the caller's grant; a task-type pause holds every tenant's work and needs an all-tenant operator. Audited.
         *
         *     Role operator or above. Answers cover the caller's tenants only.
         */
        post: operations["pauseQueue"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/pauses/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Resume: end a pause
         * @description The held tasks are claimed at once. A task-type pause is lifted by an all-tenant operator only. Audited.
         *
         *     Role operator or above. Within the caller's tenants: an id in another tenant is 404.
         */
        delete: operations["resumeQueue"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/audit": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The audit log, newest first
         * @description Filters: actor (part of it, any case), action (one, or `task.*` for every action on a kind of target), tenant, and a time range (from inclusive, to exclusive).
         *
         *     Role operator or above. Answers cover the caller's tenants only.
         */
        get: operations["listAudit"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/documents/{key}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A document: state, versions, tasks and index versions
         * @description Role viewer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        get: operations["getDocument"];
        put?: never;
        post?: never;
        /**
         * Remove a document from search
         * @description Queues a DELETE task; asking again returns the same task.
         *
         *     Role maintainer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        delete: operations["deleteDocument"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/documents/{key}/chunks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A document's chunks in one index version
         * @description Section, level, text and whether the vector was reused, in reading order. Texts are null where the version's ACL does not include the caller.
         *
         *     Role viewer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        get: operations["listChunks"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/documents/{key}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Publish a new version of a document
         * @description Text as JSON (`content`), binary formats (PDF, DOCX) as base64 in JSON (`contentEncoding: "base64"`) or as a multipart upload. Supported content types: text/markdown, text/plain, text/html, application/pdf, application/vnd.openxmlformats-officedocument.wordprocessingml.document. Content equal to the current version creates nothing (200). With an Idempotency-Key, a retried request answers as the first did, with the header Idempotent-Replayed: true.
         *
         *     Role maintainer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["publishVersion"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/documents/{key}/reindex": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Rebuild the current version's index
         * @description Takes no request body: one is refused with 400 VALIDATION_FAILED.
         *
         *     Role maintainer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["reindexDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/documents/{key}/rename": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Move a document to a new key
         * @description Role maintainer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["renameDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/documents/{key}/rollback": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Serve an earlier version and pin search to it
         * @description Role operator or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["rollbackDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/documents/{key}/unpin": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Release a rollback pin
         * @description Takes no request body: one is refused with 400 VALIDATION_FAILED.
         *
         *     Role operator or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["unpinDocument"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search a tenant
         * @description Answers from each document's search version, filtered by the caller's ACL principals (or those named, for operators and tokens with search:principals).
         *
         *     Role viewer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["search"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * People's accounts
         * @description Role admin or above. Answers cover the caller's tenants only.
         */
        get: operations["listUsers"];
        put?: never;
        /**
         * Create an account
         * @description Role admin or above. Answers cover the caller's tenants only.
         */
        post: operations["createUser"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change an account's role, tenants, groups, password or state
         * @description Role admin or above. Within the caller's tenants: an id in another tenant is 404.
         */
        patch: operations["updateUser"];
        trace?: never;
    };
    "/api/v1/admin/tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * API tokens
         * @description Role admin or above. Answers cover the caller's tenants only.
         */
        get: operations["listTokens"];
        put?: never;
        /**
         * Mint an API token
         * @description Role admin or above. Answers cover the caller's tenants only.
         */
        post: operations["createToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/tokens/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke an API token
         * @description Role admin or above. Within the caller's tenants: an id in another tenant is 404.
         */
        delete: operations["revokeToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/bootstrap-token/rotate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the bootstrap token
         * @description A new random bootstrap token, shown once; the one it replaces (configured or rotated before) stops signing in at once, with its sessions, in every web process. Audited as bootstrap_token.rotate. All-tenant admins only.
         *
         *     Role admin or above. Fleet-wide: all-tenant callers only (403 FLEET_SCOPE_REQUIRED).
         */
        post: operations["rotateBootstrapToken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/bootstrap-token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Revoke the bootstrap token
         * @description No bootstrap token signs in any more (the configured one neither) until a rotation issues a new one; its sessions end. Audited as bootstrap_token.revoke. All-tenant admins only.
         *
         *     Role admin or above. Fleet-wide: all-tenant callers only (403 FLEET_SCOPE_REQUIRED).
         */
        delete: operations["revokeBootstrapToken"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/embedding-spaces": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Index spaces
         * @description Every index space (provider, model, dimensions, chunker, rate, price), how many tenants search it, how many open migrations use it and whether its HNSW index is built. Never a key: a space names the environment variable that holds it.
         *
         *     Role operator or above.
         */
        get: operations["listEmbeddingSpaces"];
        put?: never;
        /**
         * Register an index space
         * @description One probe call first: a space whose key variable is not set (SPACE_KEY_MISSING), whose provider cannot be reached (SPACE_UNREACHABLE) or answers other dimensions (SPACE_DIMENSIONS_MISMATCH) is refused and nothing is stored. Audited as space.create. All-tenant admins only.
         *
         *     Role admin or above. Fleet-wide: all-tenant callers only (403 FLEET_SCOPE_REQUIRED).
         */
        post: operations["createEmbeddingSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/embedding-spaces/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        /**
         * Change a space's rate, price, base URL or key variable
         * @description What a space embeds with (provider, model, dimensions, chunker) never changes: register another space and migrate.
         *
         *     Role admin or above. Fleet-wide: all-tenant callers only (403 FLEET_SCOPE_REQUIRED).
         */
        patch: operations["updateEmbeddingSpace"];
        trace?: never;
    };
    "/api/v1/admin/embedding-spaces/{name}/retire": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retire a space no tenant searches
         * @description Role admin or above. Fleet-wide: all-tenant callers only (403 FLEET_SCOPE_REQUIRED).
         */
        post: operations["retireEmbeddingSpace"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/migrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a migration for every tenant on a space
         * @description One migration per tenant whose active space is `from` (every tenant not on `space` when omitted); a tenant with a migration open is skipped with the reason.
         *
         *     Role operator or above. Fleet-wide: all-tenant callers only (403 FLEET_SCOPE_REQUIRED).
         */
        post: operations["startFleetMigration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/migrations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A tenant's migrations, newest first
         * @description Role viewer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        get: operations["listMigrations"];
        put?: never;
        /**
         * Build the tenant's documents into another index space
         * @description Queues one MIGRATE task per live document search serves; workers build them into the candidate space in slots publishes leave free, at the space's rate. Search keeps reading the active space until the switch. Audited as migration.start.
         *
         *     Role operator or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["startMigration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/migrations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A migration's state and progress
         * @description Role viewer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        get: operations["getMigration"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/migrations/{id}/switch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Search reads the candidate from the next query on
         * @description Refused with MIGRATION_NOT_READY (and the counts) until every live document is built, verified and the candidate's HNSW index exists; with EVALUATION_REGRESSED (both nDCG@10 and the per-query losses in details) when the tenant's evaluation set scores lower on the candidate by more than EVALUATION_TOLERANCE, unless {force: true, reason} (audited as migration.force_switch). One transaction. Audited as migration.switch.
         *
         *     Role operator or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["switchMigration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/migrations/{id}/switch-back": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Back to the previous space at once
         * @description Nothing is embedded: the previous space kept following every publish since the switch. Audited as migration.switch_back.
         *
         *     Role operator or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["switchBackMigration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/migrations/{id}/abort": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Drop the candidate
         * @description Search never read it; queued work is superseded. Audited as migration.abort.
         *
         *     Role operator or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["abortMigration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/migrations/{id}/finish": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Stop keeping the previous space
         * @description No more second embeddings per publish, and no switch-back. Audited as migration.finish.
         *
         *     Role operator or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["finishMigration"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/evaluation-set": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's golden query set
         * @description The newest version with its queries, and every version (who changed the set, when).
         *
         *     Role maintainer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        get: operations["getEvaluationSet"];
        /**
         * Replace the tenant's golden query set (a new version)
         * @description Each query lists the keys of the documents a good answer names, optionally graded 0–3 and searched as named principals. Every problem the shape cannot express is reported at once with its own code in details.problems (DUPLICATE_RELEVANT, GRADE_NOT_RELEVANT, NO_RELEVANT, DUPLICATE_QUERY) and nothing is written. Naming principals other than one's own needs what searching as them needs. Audited as evaluation_set.update.
         *
         *     Role maintainer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        put: operations["putEvaluationSet"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/evaluations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's evaluation runs, newest first
         * @description Figures only (recall@10, MRR@10, nDCG@10 per run): the history.
         *
         *     Role viewer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        get: operations["listEvaluations"];
        put?: never;
        /**
         * Evaluate the tenant's set against an index space and search mode
         * @description A run of the newest set version, executed by a worker in the background (PENDING, RUNNING with progress, DONE or FAILED). The space is the tenant's active one by default, or its open migration's shadow (INVALID_STATE otherwise). Audited as evaluation.run, with the principals named beyond the caller's own.
         *
         *     Role maintainer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["startEvaluation"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/evaluations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * One run: figures, settings, and per query the ranks of its relevant documents and a diagnosis of each miss
         * @description A query that searched as principals the reader may not search as is shown as {index, hidden: true}.
         *
         *     Role maintainer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        get: operations["getEvaluation"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/slo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The freshness SLO of every tenant in scope, worst first
         * @description Per tenant: the objective in force (its own or the default), publishes decided good and bad over the window, those still pending, compliance and error budget left. Computed from the tasks' own timestamps at each call (docs/operations.md#freshness-slo).
         *
         *     Role viewer or above. Answers cover the caller's tenants only.
         */
        get: operations["listFreshnessSlo"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/slo": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The tenant's freshness SLO, with its compliance per day
         * @description Role viewer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        get: operations["getFreshnessSlo"];
        /**
         * Set the tenant's own freshness objective and target
         * @description An absent field is left as it is; null returns it to the default. Every problem is reported at once with its own code in details.problems (NOTHING_TO_SET, OBJECTIVE_OUT_OF_RANGE, TARGET_NOT_WHOLE, TARGET_OUT_OF_RANGE) and nothing is written. Audited as tenant.slo.update with the values before and after.
         *
         *     Role admin or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        put: operations["putFreshnessSlo"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/tenants/{tenant}/documents/{key}/why": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Why a document is not in the results of a query
         * @description The first stage that explains it: UNKNOWN, DELETED, NOT_SEARCHABLE (state and newest build), NOT_BUILT, ACL_EXCLUDED, NO_SHARED_TERMS (the closest chunk), RANKED_LOW (its rank and score, and the 10th document's). Searched as the caller, or as named principals where searching as them is allowed (audited as search.as_principals).
         *
         *     Role viewer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        get: operations["whyNotFound"];
        put?: never;
        /**
         * Why a document is not in the results of a query (JSON body)
         * @description Role viewer or above. The tenant in the path must be one of the caller's (403 FORBIDDEN).
         */
        post: operations["whyNotFoundPost"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Webhook endpoints
         * @description Role admin or above. Answers cover the caller's tenants only.
         */
        get: operations["listWebhookEndpoints"];
        put?: never;
        /**
         * Add a webhook endpoint
         * @description Deliveries are signed per Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature) with the secret in this answer, which is not shown again.
         *
         *     Role admin or above. Answers cover the caller's tenants only.
         */
        post: operations["createWebhookEndpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /**
         * Remove a webhook endpoint and its delivery log
         * @description Role admin or above. Within the caller's tenants: an id in another tenant is 404.
         */
        delete: operations["deleteWebhookEndpoint"];
        options?: never;
        head?: never;
        /**
         * Change a webhook endpoint's URL, event types, description or enabled flag
         * @description Role admin or above. Within the caller's tenants: an id in another tenant is 404.
         */
        patch: operations["updateWebhookEndpoint"];
        trace?: never;
    };
    "/api/v1/admin/webhooks/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Issue a new signing secret
         * @description The replaced secret keeps signing beside the new one for 24 hours, so receivers can switch without refusing deliveries.
         *
         *     Role admin or above. Within the caller's tenants: an id in another tenant is 404.
         */
        post: operations["rotateWebhookSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * An endpoint's delivery log
         * @description Role admin or above. Within the caller's tenants: an id in another tenant is 404.
         */
        get: operations["listWebhookDeliveries"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/api/v1/admin/webhooks/{id}/deliveries/{deliveryId}/redeliver": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Send a delivery again
         * @description Resets its attempts; the message keeps its webhook-id. Audited.
         *
         *     Role admin or above. Within the caller's tenants: an id in another tenant is 404.
         */
        post: operations["redeliverWebhook"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
};
export type webhooks = Record<string, never>;
export type components = {
    schemas: {
        Health: {
            ok: boolean;
            /** @enum {string} */
            database: "ok" | "unreachable";
            error?: {
                /** @enum {string} */
                code: "DATABASE_UNAVAILABLE";
                message: string;
            };
        };
        SignInResult: {
            /** @enum {boolean} */
            ok: true;
            role: components["schemas"]["Role"];
            subject: string;
        };
        /** @enum {string} */
        Role: "viewer" | "maintainer" | "operator" | "admin";
        Overview: {
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            generatedAt: string;
            /**
             * @description fleet for all-tenant callers; tenants when the figures cover the caller's tenants only (workers, history and reconciler are then empty or null).
             * @enum {string}
             */
            scope: "fleet" | "tenants";
            queue: {
                due: number;
                oldestDueAgeSeconds: number | null;
                waitingForRetry: number;
                running: number;
                leasesExpiringSoon: number;
                leasesExpired: number;
                dead: number;
                /** @description Per priority class: tenants with work queued, and the longest any of them has waited for its next task (the fair claim serves tenants in turn, so the oldest wait is a tenant's, not the queue head's). */
                byPriority: {
                    /** @enum {string} */
                    priority: "interactive" | "bulk" | "migration";
                    tenantsWaiting: number;
                    oldestWaitSeconds: number | null;
                }[];
                /** @description The five tenants whose next queued task has waited longest, longest first. */
                longestWaits: {
                    tenant: string;
                    /** @enum {string} */
                    priority: "interactive" | "bulk" | "migration";
                    waitSeconds: number;
                }[];
            };
            errors: {
                errorCode: string;
                status: components["schemas"]["TaskStatus"];
                count: number;
            }[];
            drift: {
                count: number;
                acknowledged: number;
                oldestAgeSeconds: number | null;
            };
            /** @description Live documents whose search version was built in another index space than their tenant's active one: search finds nothing of them, and they read NOT_INDEXED until rebuilt (the reconciler's STALE_MODEL queues the rebuilds). model and dimensions: the active space of the tenants in scope when they are all on one, else null. */
            otherEmbeddingSpace: {
                count: number;
                model: string | null;
                dimensions: number | null;
            };
            publishToSearchableSeconds: {
                p50: number | null;
                p95: number | null;
                p99: number | null;
                samples: number;
            };
            perTask: {
                chunks: number | null;
                embeddingBatches: number | null;
            };
            embeddingReuseRate: number | null;
            workers: {
                id: string;
                host: string;
                pid: number;
                concurrency: number;
                /**
                 * Format: date-time
                 * @description An instant, ISO 8601 in UTC.
                 */
                startedAt: string;
                /**
                 * Format: date-time
                 * @description An instant, ISO 8601 in UTC.
                 */
                lastHeartbeatAt: string;
                currentTasks: string[];
            }[];
            history: {
                /**
                 * Format: date-time
                 * @description An instant, ISO 8601 in UTC.
                 */
                at: string;
                pending: number;
                retryWait: number;
                running: number;
                dead: number;
                due: number;
                oldestDueAgeSeconds: number | null;
                drift: number;
                latencyP50Seconds: number | null;
                latencyP95Seconds: number | null;
            }[];
            reconciler: {
                lastPass: {
                    id: string;
                    /**
                     * Format: date-time
                     * @description An instant, ISO 8601 in UTC.
                     */
                    startedAt: string;
                    /**
                     * Format: date-time
                     * @description An instant, ISO 8601 in UTC.
                     */
                    finishedAt: string | null;
                    actor: string;
                } | null;
                kinds: {
                    /** @enum {string} */
                    kind: "EXPIRED_LEASE" | "STALE_DRIFT" | "MISSING_TASK" | "UNSWITCHED_READY" | "STALE_MODEL" | "ORPHANED_CHUNKS" | "DEAD_TASKS";
                    found: number;
                    repaired: number;
                    skippedCap: number;
                }[];
                totals: {
                    /** @enum {string} */
                    kind: "EXPIRED_LEASE" | "STALE_DRIFT" | "MISSING_TASK" | "UNSWITCHED_READY" | "STALE_MODEL" | "ORPHANED_CHUNKS" | "DEAD_TASKS";
                    /** @enum {string} */
                    action: "REPORTED" | "REPAIRED" | "SKIPPED_CAP";
                    count: number;
                }[];
            } | null;
            /** @description Where the dashboard's reads and search go, and how far behind the read replica is. */
            reads: {
                /** @description Whether a read replica is configured (DATABASE_READ_URL). */
                configured: boolean;
                /**
                 * @description Where this answer was read.
                 * @enum {string}
                 */
                answeredFrom: "primary" | "replica";
                /**
                 * @description Where reads with no write of the caller's own to wait for go now: the primary while the replica is more than maxLagSeconds behind or does not answer.
                 * @enum {string}
                 */
                servingReads: "primary" | "replica";
                /** @description At most this old is the replica's view: everything the primary had committed that long ago is replayed there (0: it had replayed all the primary had written when last asked). null: not known (no replica, or it did not answer). */
                lagSeconds: number | null;
                /** @description WAL the replica had not replayed when last asked. */
                lagBytes: number | null;
                maxLagSeconds: number;
                /** @description Why reads are on the primary although a replica is configured. */
                reason: string | null;
                /**
                 * Format: date-time
                 * @description An instant, ISO 8601 in UTC.
                 */
                sampledAt: string | null;
            };
        };
        /** @enum {string} */
        TaskStatus: "PENDING" | "RUNNING" | "RETRY_WAIT" | "SUCCEEDED" | "DEAD" | "SUPERSEDED" | "RESOLVED" | "CANCELLED";
        OverviewActivity: {
            /** @enum {string} */
            range: "1h" | "24h" | "7d";
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            generatedAt: string;
            bucketSeconds: number;
            /** @enum {string} */
            scope: "fleet" | "tenants";
            /** @description Tasks finished in the range, by outcome. */
            totals: {
                SUCCEEDED: number;
                DEAD: number;
                RESOLVED: number;
                SUPERSEDED: number;
            };
            /** @description Tasks finished per minute, averaged over each bucket, oldest first; empty buckets are zeros. */
            throughput: {
                /**
                 * Format: date-time
                 * @description An instant, ISO 8601 in UTC.
                 */
                at: string;
                SUCCEEDED: number;
                DEAD: number;
                RESOLVED: number;
                SUPERSEDED: number;
            }[];
            /** @description Backlog snapshots in the range (fleet callers only; empty for a tenant-limited caller). */
            history: {
                /**
                 * Format: date-time
                 * @description An instant, ISO 8601 in UTC.
                 */
                at: string;
                pending: number;
                retryWait: number;
                running: number;
                dead: number;
                due: number;
                oldestDueAgeSeconds: number | null;
                drift: number;
                latencyP50Seconds: number | null;
                latencyP95Seconds: number | null;
            }[];
        };
        WorkerList: {
            items: components["schemas"]["Worker"][];
        };
        Worker: {
            id: string;
            host: string;
            pid: number;
            concurrency: number;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            startedAt: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            lastHeartbeatAt: string;
            currentTasks: string[];
            live: boolean;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            stoppedAt: string | null;
        };
        TenantList: {
            items: components["schemas"]["Tenant"][];
        };
        Tenant: {
            id: string;
            name: string;
            /** @description The index space the tenant's search reads (its active space). */
            space: {
                id: number;
                name: string;
            };
        };
        DocumentPage: {
            items: components["schemas"]["DocumentSummary"][];
            nextCursor: string | null;
        };
        DocumentSummary: {
            tenant: string;
            key: string;
            title: string;
            state: components["schemas"]["DocumentState"];
            /** @description The newest published version. */
            businessVersion: number;
            /** @description The version search answers from; null until one is built. */
            searchVersion: number | null;
            /** @description False when the search version was built with another embedding model than search uses now. */
            searchVersionServed: boolean;
            lastError: {
                code: string;
                message: string;
            } | null;
            /** @description Chunks embedded of the total while a task runs; null otherwise. */
            progress: {
                done: number;
                total: number;
            } | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            updatedAt: string;
        };
        /**
         * @description NOT_INDEXED, INDEXING (first version being built), SEARCHABLE, UPDATING (searchable, a newer version being built), FAILED, DELETED.
         * @enum {string}
         */
        DocumentState: "NOT_INDEXED" | "INDEXING" | "SEARCHABLE" | "UPDATING" | "FAILED" | "DELETED";
        TaskPage: {
            items: components["schemas"]["Task"][];
            nextCursor: string | null;
        };
        Task: {
            taskId: string;
            versionNumber: number;
            taskType: components["schemas"]["TaskType"];
            status: components["schemas"]["TaskStatus"];
            attempts: number;
            maxAttempts: number;
            errorCode: string | null;
            errorMessage: string | null;
            /** @description Chunks embedded of the total while a task runs; null otherwise. */
            progress: {
                done: number;
                total: number;
            } | null;
            /** @description Chunk figures once the worker has chunked the version; null before. */
            stats: {
                chunksTotal: number;
                chunksReused: number | null;
                batchesSent: number | null;
            } | null;
            leaseOwner: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            nextAttemptAt: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            updatedAt: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            finishedAt: string | null;
            tenant: string;
            documentKey: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            leaseUntil: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            startedAt: string | null;
            /** @description The pause that keeps this task from being claimed; null when none does (or the task is not waiting). */
            paused: {
                /** @description "tenant <id>" or "task type <type>" */
                target: string;
                by: string;
                reason: string;
                /**
                 * Format: date-time
                 * @description An instant, ISO 8601 in UTC.
                 */
                since: string;
            } | null;
        };
        /** @enum {string} */
        TaskType: "INDEX" | "REINDEX" | "DELETE" | "MIGRATE";
        ListExport: {
            /** @enum {string} */
            kind: "documents" | "tasks";
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            exportedAt: string;
            /** @description The list filters the export was made with. */
            filters: {
                [key: string]: unknown;
            };
            /** @description One object per row, with the CSV's columns as keys. */
            items: {
                [key: string]: string | number | boolean | null;
            }[];
            count: number;
        };
        TaskDetail: {
            taskId: string;
            versionNumber: number;
            taskType: components["schemas"]["TaskType"];
            status: components["schemas"]["TaskStatus"];
            attempts: number;
            maxAttempts: number;
            errorCode: string | null;
            errorMessage: string | null;
            /** @description Chunks embedded of the total while a task runs; null otherwise. */
            progress: {
                done: number;
                total: number;
            } | null;
            /** @description Chunk figures once the worker has chunked the version; null before. */
            stats: {
                chunksTotal: number;
                chunksReused: number | null;
                batchesSent: number | null;
            } | null;
            leaseOwner: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            nextAttemptAt: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            updatedAt: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            finishedAt: string | null;
            tenant: string;
            documentKey: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            leaseUntil: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            startedAt: string | null;
            /** @description The pause that keeps this task from being claimed; null when none does (or the task is not waiting). */
            paused: {
                /** @description "tenant <id>" or "task type <type>" */
                target: string;
                by: string;
                reason: string;
                /**
                 * Format: date-time
                 * @description An instant, ISO 8601 in UTC.
                 */
                since: string;
            } | null;
            events: components["schemas"]["TaskEvent"][];
        };
        TaskEvent: {
            id: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            at: string;
            kind: string;
            actor: string | null;
            leaseAttempt: number | null;
            errorCode: string | null;
            /** @description Free-form JSON, or null. */
            detail?: unknown;
        };
        TaskActionResult: {
            taskId: string;
            status: components["schemas"]["TaskStatus"];
        };
        BulkRetryResult: {
            retried: number;
            skipped: number;
        };
        TaskPauseList: {
            items: components["schemas"]["TaskPause"][];
        };
        TaskPause: {
            id: string;
            tenant: string | null;
            /** @enum {string|null} */
            taskType: "INDEX" | "REINDEX" | "DELETE" | "MIGRATE" | null;
            pausedBy: string;
            reason: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            since: string;
            /** @description Due tasks the pause holds back (counted up to 10,000), within the caller's tenants. */
            waiting: number;
        };
        TaskPauseResumed: {
            id: string;
            tenant: string | null;
            /** @enum {string|null} */
            taskType: "INDEX" | "REINDEX" | "DELETE" | "MIGRATE" | null;
            /** @enum {boolean} */
            resumed: true;
        };
        AuditPage: {
            items: components["schemas"]["AuditEntry"][];
            nextCursor: string | null;
        };
        AuditEntry: {
            id: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            at: string;
            actor: string;
            action: string;
            tenant: string | null;
            targetType: string;
            targetId: string;
            reason: string | null;
            /** @description Free-form JSON, or null. */
            detail?: unknown;
        };
        DocumentDetail: {
            /** Format: uuid */
            documentId: string;
            tenant: string;
            key: string;
            title: string;
            state: components["schemas"]["DocumentState"];
            /** @description The newest published version. */
            businessVersion: number;
            /** @description The version search answers from; null until one is built. */
            searchVersion: number | null;
            /** @description False when the search version was built with another embedding model than search uses now. */
            searchVersionServed: boolean;
            lastError: {
                code: string;
                message: string;
            } | null;
            /** @description Chunks embedded of the total while a task runs; null otherwise. */
            progress: {
                done: number;
                total: number;
            } | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            updatedAt: string;
            /** @description Search held at searchVersion by a rollback until an unpin or the next publish. */
            pinned: boolean;
            pinnedBy: string | null;
            pinnedReason: string | null;
            /** @description Newest first, at most 100. */
            versions: components["schemas"]["DocumentVersion"][];
            /** @description Newest first, at most 100. */
            tasks: components["schemas"]["DocumentTask"][];
            /** @description Newest first, at most 50. */
            indexVersions: components["schemas"]["IndexVersion"][];
            /** @description The tenant's active index space: the one search reads in this tenant (id, name, embedding model and dimensions). An index version of another space serves nothing, and rollback and unpin only choose versions of this one. */
            embeddingSpace: {
                id: number;
                name: string;
                model: string;
                dimensions: number;
            } | null;
        };
        DocumentVersion: {
            versionNumber: number;
            title: string;
            contentType: string;
            contentBytes: number;
            /** @description SHA-256 of the published bytes, hex. Null for a caller below maintainer whom search would not show the text (the version's own, the served or the latest version's ACL excludes them, or the document is deleted): it would confirm a guessed text. */
            checksum: string | null;
            acl: string[];
            hasAbstract: boolean;
            hasOverview: boolean;
            publishedBy: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            publishedAt: string;
        };
        DocumentTask: {
            taskId: string;
            versionNumber: number;
            taskType: components["schemas"]["TaskType"];
            status: components["schemas"]["TaskStatus"];
            attempts: number;
            maxAttempts: number;
            errorCode: string | null;
            errorMessage: string | null;
            /** @description Chunks embedded of the total while a task runs; null otherwise. */
            progress: {
                done: number;
                total: number;
            } | null;
            /** @description Chunk figures once the worker has chunked the version; null before. */
            stats: {
                chunksTotal: number;
                chunksReused: number | null;
                batchesSent: number | null;
            } | null;
            leaseOwner: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            nextAttemptAt: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            updatedAt: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            finishedAt: string | null;
        };
        IndexVersion: {
            /** Format: uuid */
            id: string;
            versionNumber: number;
            status: string;
            chunkerVersion: string;
            embeddingModel: string;
            embeddingDimensions: number;
            /** @description The index space it was built in (embeddingSpace.id when search reads it). */
            spaceId: number;
            chunkCount: number;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            activatedAt: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            retiredAt: string | null;
        };
        ChunkPage: {
            indexVersions: {
                /** Format: uuid */
                id: string;
                versionNumber: number;
                status: string;
                chunkerVersion: string;
                embeddingModel: string;
                embeddingDimensions: number;
                chunkCount: number;
                chunksReusedAtBuild: number | null;
                /**
                 * Format: date-time
                 * @description An instant, ISO 8601 in UTC.
                 */
                createdAt: string;
                serving: boolean;
            }[];
            /**
             * Format: uuid
             * @description The index version these chunks belong to: the one asked for, else the one search serves, else the newest.
             */
            indexVersionId: string | null;
            /** @description True when search would not show the caller this version's text: the document is deleted, or the version's own ACL, the served version's or the latest published version's does not include the caller. Texts, section headings, content hashes and chunk ids (derived from the hash) are then null. */
            textHidden: boolean;
            /**
             * @description Why the text is hidden: an ACL that does not include the caller, or a deleted document. Null when shown.
             * @enum {string|null}
             */
            textHiddenReason: "ACL" | "DELETED" | null;
            items: {
                ordinal: number;
                /** @description Null where the text is hidden: it is derived from the content hash. */
                chunkId: string | null;
                /** @description 0 abstract, 1 overview, 2 a chunk of the body. */
                level: number;
                /** @description The heading path; null where the text is hidden. */
                sectionPath: string | null;
                text: string | null;
                chars: number;
                /** @description sha256 of the section path and text; null where the text is hidden. */
                contentHash: string | null;
                /** @description An earlier stored index version of the document in the same embedding space holds the same text. */
                reused: boolean;
            }[];
            nextCursor: string | null;
        };
        TaskCreated: {
            taskId: string;
        };
        /** @description 202 when a new version was created; 200 when the content equals the current version. */
        PublishResult: {
            /** Format: uuid */
            documentId: string;
            versionNumber: number;
            taskId: string | null;
            state: components["schemas"]["DocumentState"];
            /** @description The version search answers from now (null: none). Below versionNumber while the new version is indexed, and also when an unchanged publish meets a build an operator force-done or a rollback pinned: state then reads SEARCHABLE for the older version, and nothing is queued (unpin or reindex builds it). */
            searchVersion: number | null;
            /** @description False when searchVersion was built with another embedding model than search uses now: search finds nothing of it, and state reads NOT_INDEXED (INDEXING while a rebuild runs), as in the document's detail. */
            searchVersionServed: boolean;
            /** @description Search is held at searchVersion by a rollback. A publish that creates a version lifts the pin; an unchanged one does not. */
            pinned: boolean;
        };
        PublishUpload: {
            /** @description The document's bytes; its type is the contentType field, else the part's own type. */
            file: string;
            /** @description Defaults to the file name without its extension. */
            title?: string;
            contentType?: string;
            /** @description Principals, comma-separated. Absent: the latest version's ACL is kept (a new document: the whole tenant); an empty value opens the document to the whole tenant. */
            acl?: string;
            abstract?: string;
            overview?: string;
            /**
             * @description interactive (the default) or bulk.
             * @enum {string}
             */
            priority?: "interactive" | "bulk";
        };
        RenameResult: {
            tenant: string;
            key: string;
            renamed: boolean;
        };
        RollbackResult: {
            tenant: string;
            key: string;
            searchVersion: number;
            /** @enum {boolean} */
            pinned: true;
        };
        /** @description taskId: the task that builds the business version when none of its index versions could serve at once. */
        UnpinResult: {
            tenant: string;
            key: string;
            /** @enum {boolean} */
            pinned: false;
            searchVersion: number | null;
            taskId: string | null;
        };
        SearchResult: {
            hits: components["schemas"]["SearchHit"][];
            /** @description The ACL principals the search ran as. */
            searchedAs: string[];
            /** @description The index space that answered: the tenant's active one when the statement ran. */
            space: string;
        };
        SearchHit: {
            documentKey: string;
            versionNumber: number;
            chunkId: string;
            sectionPath: string;
            text: string;
            score: number;
            level: number;
        };
        UserList: {
            items: components["schemas"]["User"][];
        };
        User: {
            /** Format: uuid */
            id: string;
            email: string;
            role: components["schemas"]["Role"];
            /** @description Tenant names, or ["*"] for every tenant. */
            tenants: string[];
            groups: string[];
            ssoGroups: string[];
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            disabledAt: string | null;
            sso: boolean;
            activeSessions: number;
        };
        UserCreated: {
            /** Format: uuid */
            id: string;
            email: string;
            role: components["schemas"]["Role"];
            /** @description Tenant names, or ["*"] for every tenant. */
            tenants: string[];
            groups: string[];
        };
        UserUpdated: {
            /** Format: uuid */
            id: string;
            email: string;
            role: components["schemas"]["Role"];
            /** @description Tenant names, or ["*"] for every tenant. */
            tenants: string[];
            groups: string[];
            ssoGroups: string[];
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            disabledAt: string | null;
            sessionsEnded: number;
        };
        TokenList: {
            items: components["schemas"]["Token"][];
        };
        Token: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @enum {string} */
            kind: "application" | "person";
            /** Format: uuid */
            userId: string | null;
            userEmail: string | null;
            role: components["schemas"]["Role"];
            /** @description Tenant names, or ["*"] for every tenant. */
            tenants: string[];
            capabilities: ("search:principals" | "metrics:read")[];
            createdBy: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            createdAt: string;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            lastUsedAt: string | null;
            /**
             * Format: date-time
             * @description An instant, ISO 8601 in UTC.
             */
            revokedAt: string | null;
        };
        TokenCreated: {
            /** Format: uuid */
            id: string;
            name: string;
            /** @enum {string} */
            kind: "application" | "person";
            /** Format: uuid */
            userId: string | null;
            role: components["schemas"]["Role"];
            /** @description Tenant names, or ["*"] for every tenant. */
            tenants: string[];
            capabilities: ("search:principals" | "metrics:read")[];
            /** @description The secret, shown this once: only its hash is stored. */
            token: string;
        };
        TokenRevoked: {
            /** Format: uuid */
            id: string;
            /** @enum {boolean} */
            revoked: true;
        };
        BootstrapTokenRotated: {
            /** @description The new bootstrap token, shown once; the old one and its sessions stopped working. */
            token: string;
            sessionsEnded: number;
        };
        BootstrapTokenRevoked: {
            /** @enum {boolean} */
            revoked: true;
            sessionsEnded: number;
        };
        EvaluationSet: {
            tenant: string;
            version: number;
            queries: {
                query: string;
                relevant: string[];
                grades?: {
                    [key: string]: number;
                };
                principals?: string[];
            }[];
            createdBy: string;
            /** Format: date-time */
            createdAt: string;
            versions: {
                version: number;
                queryCount: number;
                createdBy: string;
                /** Format: date-time */
                createdAt: string;
            }[];
        };
        EvaluationSetBody: {
            queries: {
                query: string;
                relevant: string[];
                grades?: {
                    [key: string]: number;
                };
                principals?: string[];
            }[];
        };
        EvaluationRunSummary: {
            id: string;
            tenant: string;
            /** @enum {string} */
            state: "PENDING" | "RUNNING" | "DONE" | "FAILED";
            /** @enum {string} */
            trigger: "api" | "gate" | "scheduled" | "switch";
            migrationId: string | null;
            setVersion: number;
            space: string;
            /** @enum {string} */
            mode: "vector" | "text" | "hybrid";
            topK: number;
            progress: {
                done: number;
                total: number;
            };
            figures: {
                recallAt10: number;
                mrrAt10: number;
                ndcgAt10: number;
            } | null;
            error: string | null;
            requestedBy: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            startedAt: string | null;
            /** Format: date-time */
            finishedAt: string | null;
        };
        EvaluationRun: {
            id: string;
            tenant: string;
            /** @enum {string} */
            state: "PENDING" | "RUNNING" | "DONE" | "FAILED";
            /** @enum {string} */
            trigger: "api" | "gate" | "scheduled" | "switch";
            migrationId: string | null;
            setVersion: number;
            space: string;
            /** @enum {string} */
            mode: "vector" | "text" | "hybrid";
            topK: number;
            progress: {
                done: number;
                total: number;
            };
            figures: {
                recallAt10: number;
                mrrAt10: number;
                ndcgAt10: number;
            } | null;
            error: string | null;
            requestedBy: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            startedAt: string | null;
            /** Format: date-time */
            finishedAt: string | null;
            settings: {
                [key: string]: unknown;
            };
            queries: (components["schemas"]["EvaluationQueryResult"] | {
                index: number;
                /** @enum {boolean} */
                hidden: true;
            })[] | null;
        };
        EvaluationQueryResult: {
            index: number;
            query: string;
            principals: string[];
            graded: boolean;
            relevant: {
                key: string;
                grade: number;
                rank: number | null;
                score: number | null;
                diagnosis: components["schemas"]["EvaluationDiagnosis"];
            }[];
            answer: {
                key: string;
                score: number;
            }[];
            recall: number;
            reciprocalRank: number;
            ndcg: number;
        };
        EvaluationDiagnosis: {
            /** @enum {string} */
            stage: "UNKNOWN" | "DELETED" | "NOT_SEARCHABLE" | "NOT_BUILT" | "ACL_EXCLUDED" | "NO_SHARED_TERMS" | "RANKED_LOW";
            message: string;
            state?: string;
            task?: {
                taskId: string;
                type: string;
                status: string;
                errorCode: string | null;
                errorMessage: string | null;
            } | null;
            space?: string;
            principals?: string[];
            acl?: {
                served: string[];
                latest: string[];
            };
            closestChunk?: {
                chunkId: string;
                sectionPath: string;
                text: string;
                similarity: number;
            } | null;
            rank?: number | null;
            score?: number | null;
            kthScore?: number | null;
            depth?: number;
        } | null;
        FreshnessSloList: {
            items: components["schemas"]["FreshnessSloSummary"][];
            defaults: {
                objective: number;
                targetSeconds: number;
                windowDays: number;
            };
            generatedAt: string;
        };
        FreshnessSloSummary: {
            tenant: string;
            /** @description The objective in force: the tenant's own, else the default. */
            objective: number;
            targetSeconds: number;
            windowDays: number;
            custom: {
                objective: boolean;
                targetSeconds: boolean;
            };
            /** @description Publishes searchable within the target, decided in the window. */
            good: number;
            /** @description Publishes that missed the target (late, failed, or still unfinished past it). */
            bad: number;
            /** @description Publishes still unfinished within their target: not decided yet. */
            pending: number;
            /** @description good / (good + bad); null with no decided publish. */
            compliance: number | null;
            /** @description 1 - (bad / total) / (1 - objective): 1 untouched, 0 spent, below 0 overspent; null with no decided publish. */
            budgetRemaining: number | null;
        };
        FreshnessSloView: {
            tenant: string;
            /** @description The objective in force: the tenant's own, else the default. */
            objective: number;
            targetSeconds: number;
            windowDays: number;
            custom: {
                objective: boolean;
                targetSeconds: boolean;
            };
            /** @description Publishes searchable within the target, decided in the window. */
            good: number;
            /** @description Publishes that missed the target (late, failed, or still unfinished past it). */
            bad: number;
            /** @description Publishes still unfinished within their target: not decided yet. */
            pending: number;
            /** @description good / (good + bad); null with no decided publish. */
            compliance: number | null;
            /** @description 1 - (bad / total) / (1 - objective): 1 untouched, 0 spent, below 0 overspent; null with no decided publish. */
            budgetRemaining: number | null;
            days: {
                day: string;
                good: number;
                bad: number;
                compliance: number | null;
            }[];
            generatedAt: string;
        };
        FreshnessSloBody: {
            /** @description Share of publishes that must be searchable within the target, 0.5–0.9999 (0.99 = 99 %); null: the default. */
            objective?: number | null;
            /** @description Seconds from publish to searchable, a whole number 10–86400; null: the default. */
            targetSeconds?: number | null;
        };
        WhyResult: {
            tenant: string;
            key: string;
            query: string;
            searchedAs: string[];
            space: string;
            /** @enum {string} */
            mode: "vector" | "text" | "hybrid";
            topK: number;
            rank: number | null;
            found: boolean;
            diagnosis: components["schemas"]["EvaluationDiagnosis"];
            answer: {
                key: string;
                score: number;
            }[];
        };
        WebhookEndpointList: {
            items: components["schemas"]["WebhookEndpoint"][];
        };
        WebhookEndpoint: {
            /** Format: uuid */
            id: string;
            tenant: string;
            url: string;
            description: string;
            eventTypes: components["schemas"]["WebhookEventType"][];
            enabled: boolean;
            createdBy: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /**
             * Format: date-time
             * @description Until when secrets replaced by rotations still sign beside the current one: each for 24 hours after the rotation that replaced it; this is the last of those windows to end.
             */
            previousSecretUntil: string | null;
            deliveries: {
                pending: number;
                failing: number;
                dead: number;
                delivered: number;
                /** Format: date-time */
                lastAttemptAt: string | null;
            };
        };
        /** @enum {string} */
        WebhookEventType: "document.searchable" | "document.failed" | "document.deleted" | "task.dead" | "migration.started" | "migration.ready" | "migration.switched" | "migration.switched_back" | "migration.aborted" | "migration.finished";
        WebhookEndpointWithSecret: {
            /** Format: uuid */
            id: string;
            tenant: string;
            url: string;
            description: string;
            eventTypes: components["schemas"]["WebhookEventType"][];
            enabled: boolean;
            createdBy: string;
            /** Format: date-time */
            createdAt: string;
            /** Format: date-time */
            updatedAt: string;
            /**
             * Format: date-time
             * @description Until when secrets replaced by rotations still sign beside the current one: each for 24 hours after the rotation that replaced it; this is the last of those windows to end.
             */
            previousSecretUntil: string | null;
            deliveries: {
                pending: number;
                failing: number;
                dead: number;
                delivered: number;
                /** Format: date-time */
                lastAttemptAt: string | null;
            };
            /** @description The signing secret (Standard Webhooks, whsec_…). Shown in this answer only. */
            secret: string;
        };
        WebhookEndpointDeleted: {
            /** Format: uuid */
            id: string;
            /** @enum {boolean} */
            deleted: true;
        };
        WebhookDeliveryList: {
            items: components["schemas"]["WebhookDelivery"][];
            nextCursor: string | null;
        };
        WebhookDelivery: {
            id: string;
            /** @enum {string} */
            status: "PENDING" | "SENDING" | "RETRY_WAIT" | "DELIVERED" | "DEAD";
            attempts: number;
            /** Format: date-time */
            nextAttemptAt: string | null;
            /** Format: date-time */
            lastAttemptAt: string | null;
            responseStatus: number | null;
            latencyMs: number | null;
            error: string | null;
            /** Format: date-time */
            deliveredAt: string | null;
            /** Format: date-time */
            createdAt: string;
            /** @description The webhook-id header: the same on every attempt and redelivery. */
            messageId: string;
            eventType: components["schemas"]["WebhookEventType"];
            payload: {
                type: components["schemas"]["WebhookEventType"];
                timestamp: string;
                data: {
                    [key: string]: unknown;
                };
            };
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
};
export type $defs = Record<string, never>;
export interface operations {
    health: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The database answers. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
            /** @description DATABASE_UNAVAILABLE */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Health"];
                };
            };
        };
    };
    openapi: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The OpenAPI 3.1 document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        openapi: string;
                    } & {
                        [key: string]: unknown;
                    };
                };
            };
        };
    };
    signIn: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    token: string;
                } | {
                    email: string;
                    password: string;
                };
            };
        };
        responses: {
            /** @description Signed in; the session cookie is set. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SignInResult"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description TOO_MANY_ATTEMPTS */
            429: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "TOO_MANY_ATTEMPTS";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description HASHING_BUSY */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "HASHING_BUSY";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    signOut: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed out (also without a session); the cookie is cleared. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        /** @enum {boolean} */
                        ok: true;
                    };
                };
            };
            /** @description ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    oidcStart: {
        parameters: {
            query?: {
                /** @description A local path to return to after sign-in. */
                next?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Redirect to the identity provider (or back to /signin with an error code). */
            303: {
                headers: {
                    /** @description Where to go. */
                    location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    oidcCallback: {
        parameters: {
            query?: {
                code?: string;
                state?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Signed in and redirected (or sent to /signin?error=CODE). */
            303: {
                headers: {
                    /** @description Where to go. */
                    location?: string;
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    metrics: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Prometheus text exposition format. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/plain": string;
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FLEET_SCOPE_REQUIRED, FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FLEET_SCOPE_REQUIRED" | "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getOverview: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The overview over the caller's tenants. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Overview"];
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getOverviewActivity: {
        parameters: {
            query?: {
                range?: "1h" | "24h" | "7d";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tasks finished per minute by outcome, and the backlog snapshots, over 1 h, 24 h or 7 d. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OverviewActivity"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listWorkers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Workers live or stopped in the last 24 hours. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkerList"];
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FLEET_SCOPE_REQUIRED, FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FLEET_SCOPE_REQUIRED" | "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listTenants: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tenants. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TenantList"];
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listDocuments: {
        parameters: {
            query?: {
                tenant?: string;
                state?: "NOT_INDEXED" | "INDEXING" | "SEARCHABLE" | "UPDATING" | "FAILED" | "DELETED";
                q?: string;
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of documents; pass nextCursor as cursor for the next. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DocumentPage"];
                };
            };
            /** @description INVALID_CURSOR, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_CURSOR" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listTasks: {
        parameters: {
            query?: {
                status?: "PENDING" | "RUNNING" | "RETRY_WAIT" | "SUCCEEDED" | "DEAD" | "SUPERSEDED" | "RESOLVED" | "CANCELLED";
                errorCode?: "UNSUPPORTED_DOCUMENT" | "PARSE_ERROR" | "EMPTY_DOCUMENT" | "PARSE_LIMIT_EXCEEDED" | "EMBEDDING_RATE_LIMITED" | "EMBEDDING_TIMEOUT" | "EMBEDDING_PROVIDER_UNAVAILABLE" | "EMBEDDING_INVALID_RESPONSE" | "INDEX_INTEGRITY_FAILED" | "LEASE_ATTEMPTS_EXHAUSTED" | "OPERATOR_CANCELLED" | "INTERNAL_ERROR";
                type?: "INDEX" | "REINDEX" | "DELETE" | "MIGRATE";
                tenant?: string;
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of tasks. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskPage"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    exportDocuments: {
        parameters: {
            query?: {
                tenant?: string;
                state?: "NOT_INDEXED" | "INDEXING" | "SEARCHABLE" | "UPDATING" | "FAILED" | "DELETED";
                q?: string;
                format?: "csv" | "json";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export, as an attachment. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/json": components["schemas"]["ListExport"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    exportTasks: {
        parameters: {
            query?: {
                status?: "PENDING" | "RUNNING" | "RETRY_WAIT" | "SUCCEEDED" | "DEAD" | "SUPERSEDED" | "RESOLVED" | "CANCELLED";
                errorCode?: "UNSUPPORTED_DOCUMENT" | "PARSE_ERROR" | "EMPTY_DOCUMENT" | "PARSE_LIMIT_EXCEEDED" | "EMBEDDING_RATE_LIMITED" | "EMBEDDING_TIMEOUT" | "EMBEDDING_PROVIDER_UNAVAILABLE" | "EMBEDDING_INVALID_RESPONSE" | "INDEX_INTEGRITY_FAILED" | "LEASE_ATTEMPTS_EXHAUSTED" | "OPERATOR_CANCELLED" | "INTERNAL_ERROR";
                type?: "INDEX" | "REINDEX" | "DELETE" | "MIGRATE";
                tenant?: string;
                format?: "csv" | "json";
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export, as an attachment. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "text/csv": string;
                    "application/json": components["schemas"]["ListExport"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskId: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The task. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskDetail"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    retryTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description The task is PENDING again. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskActionResult"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description INVALID_STATE, TASK_SUPERSEDED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_STATE" | "TASK_SUPERSEDED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    forceDoneTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason: string;
                };
            };
        };
        responses: {
            /** @description The task is RESOLVED. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskActionResult"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description INVALID_STATE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_STATE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    retryTasks: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    status: "DEAD";
                    /** @enum {string} */
                    errorCode?: "UNSUPPORTED_DOCUMENT" | "PARSE_ERROR" | "EMPTY_DOCUMENT" | "PARSE_LIMIT_EXCEEDED" | "EMBEDDING_RATE_LIMITED" | "EMBEDDING_TIMEOUT" | "EMBEDDING_PROVIDER_UNAVAILABLE" | "EMBEDDING_INVALID_RESPONSE" | "INDEX_INTEGRITY_FAILED" | "LEASE_ATTEMPTS_EXHAUSTED" | "OPERATOR_CANCELLED" | "INTERNAL_ERROR";
                    tenant?: string;
                    /** @enum {string} */
                    type?: "INDEX" | "REINDEX" | "DELETE" | "MIGRATE";
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description How many were revived; obsolete ones are skipped. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BulkRetryResult"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    cancelTask: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                taskId: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    reason: string;
                };
            };
        };
        responses: {
            /** @description The task is CANCELLED. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskActionResult"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description TASK_NOT_CANCELLABLE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "TASK_NOT_CANCELLABLE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listPauses: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Oldest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskPauseList"];
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    pauseQueue: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tenant?: string;
                    /** @enum {string} */
                    taskType?: "INDEX" | "REINDEX" | "DELETE" | "MIGRATE";
                    reason: string;
                };
            };
        };
        responses: {
            /** @description The pause. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskPause"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FLEET_SCOPE_REQUIRED, FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FLEET_SCOPE_REQUIRED" | "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description ALREADY_PAUSED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "ALREADY_PAUSED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    resumeQueue: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description The pause ended. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskPauseResumed"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FLEET_SCOPE_REQUIRED, FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FLEET_SCOPE_REQUIRED" | "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listAudit: {
        parameters: {
            query?: {
                cursor?: string;
                limit?: number;
                actor?: string;
                action?: string;
                tenant?: string;
                from?: string;
                to?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of audit entries. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditPage"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The document. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DocumentDetail"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    deleteDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The DELETE task. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskCreated"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listChunks: {
        parameters: {
            query?: {
                indexVersion?: string;
                level?: "0" | "1" | "2";
                cursor?: string;
                limit?: number;
            };
            header?: never;
            path: {
                tenant: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of chunks; pass nextCursor as cursor for the next. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ChunkPage"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    publishVersion: {
        parameters: {
            query?: never;
            header?: {
                "idempotency-key"?: string;
            };
            path: {
                tenant: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    title: string;
                    contentType: string;
                    content: string;
                    /** @enum {string} */
                    contentEncoding?: "utf8" | "base64";
                    /** @description Principals that may find the document in search. Absent: the latest version's ACL is kept (a new document: the whole tenant), so a re-publish never opens a restricted document by leaving the field out. [] opens it to the whole tenant. */
                    acl?: string[];
                    abstract?: string | null;
                    overview?: string | null;
                    /**
                     * @description The build's class in the claim: interactive (the default) is claimed ahead of bulk; bulk is for syncs and backfills, which then never delay what people publish now. Either way tenants take turns within a class.
                     * @enum {string}
                     */
                    priority?: "interactive" | "bulk";
                };
                "multipart/form-data": components["schemas"]["PublishUpload"];
            };
        };
        responses: {
            /** @description The content equals the current version: nothing new to index. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublishResult"];
                };
            };
            /** @description A new version; its INDEX task is queued. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PublishResult"];
                };
            };
            /** @description EMPTY_DOCUMENT, INVALID_CONTENT, INVALID_ENCODING, INVALID_IDEMPOTENCY_KEY, INVALID_JSON, INVALID_MULTIPART, TEXT_TOO_LONG_FOR_MODEL, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "EMPTY_DOCUMENT" | "INVALID_CONTENT" | "INVALID_ENCODING" | "INVALID_IDEMPOTENCY_KEY" | "INVALID_JSON" | "INVALID_MULTIPART" | "TEXT_TOO_LONG_FOR_MODEL" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description IDEMPOTENCY_KEY_REUSED, KEY_CHANGED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "IDEMPOTENCY_KEY_REUSED" | "KEY_CHANGED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description CONTENT_TOO_LARGE, PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "CONTENT_TOO_LARGE" | "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_DOCUMENT, UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_DOCUMENT" | "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    reindexDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The REINDEX task. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TaskCreated"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description INVALID_STATE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_STATE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    renameDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    newKey: string;
                };
            };
        };
        responses: {
            /** @description Renamed (renamed: false when it already had that key). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RenameResult"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description KEY_TAKEN */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "KEY_TAKEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    rollbackDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    toVersion: number;
                    reason: string;
                };
            };
        };
        responses: {
            /** @description Search now answers from toVersion. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RollbackResult"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description INVALID_STATE, ROLLBACK_INCOMPATIBLE, ROLLBACK_UNAVAILABLE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_STATE" | "ROLLBACK_INCOMPATIBLE" | "ROLLBACK_UNAVAILABLE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    unpinDocument: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Search follows the business version again. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UnpinResult"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description INVALID_STATE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_STATE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    search: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    query: string;
                    topK?: number;
                    principals?: string[];
                    level?: number;
                    /**
                     * @description vector: nearest chunks by embedding (score = cosine similarity); text: full-text match with the tenant's text search configuration (score = ts_rank_cd); hybrid (default): both, fused by reciprocal rank fusion with k = 60 (score = the fused score).
                     * @enum {string}
                     */
                    mode?: "vector" | "text" | "hybrid";
                };
            };
        };
        responses: {
            /** @description Hits, best first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResult"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH, PRINCIPALS_NOT_ALLOWED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH" | "PRINCIPALS_NOT_ALLOWED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listUsers: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Accounts within the caller's tenants. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserList"];
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    createUser: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: email */
                    email: string;
                    password?: string;
                    /** @enum {string} */
                    role: "viewer" | "maintainer" | "operator" | "admin";
                    tenants: string[];
                    groups?: string[];
                };
            };
        };
        responses: {
            /** @description Created. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserCreated"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, PASSWORD_REQUIRED, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "PASSWORD_REQUIRED" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, GRANT_EXCEEDS_OWN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "GRANT_EXCEEDS_OWN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description EMAIL_TAKEN */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "EMAIL_TAKEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description HASHING_BUSY */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "HASHING_BUSY";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    updateUser: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @enum {string} */
                    role?: "viewer" | "maintainer" | "operator" | "admin";
                    tenants?: string[];
                    groups?: string[];
                    disabled?: boolean;
                    password?: string;
                    /** @enum {boolean} */
                    signOut?: true;
                };
            };
        };
        responses: {
            /** @description Updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UserUpdated"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, GRANT_EXCEEDS_OWN, ORIGIN_MISMATCH, SELF_GRANT */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "GRANT_EXCEEDS_OWN" | "ORIGIN_MISMATCH" | "SELF_GRANT";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description HASHING_BUSY */
            503: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "HASHING_BUSY";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listTokens: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Tokens within the caller's tenants. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenList"];
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    createToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    role: "viewer" | "maintainer" | "operator" | "admin";
                    tenants: string[];
                    /**
                     * @default application
                     * @enum {string}
                     */
                    kind?: "application" | "person";
                    /** Format: uuid */
                    userId?: string;
                    capabilities?: ("search:principals" | "metrics:read")[];
                };
            };
        };
        responses: {
            /** @description The token, with its secret shown once. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenCreated"];
                };
            };
            /** @description CAPABILITY_NOT_ALLOWED, INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "CAPABILITY_NOT_ALLOWED" | "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, GRANT_EXCEEDS_OWN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "GRANT_EXCEEDS_OWN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description USER_DISABLED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "USER_DISABLED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    revokeToken: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked (also when it already was). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TokenRevoked"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    rotateBootstrapToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The new token. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BootstrapTokenRotated"];
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FLEET_SCOPE_REQUIRED, FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FLEET_SCOPE_REQUIRED" | "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    revokeBootstrapToken: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Revoked. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BootstrapTokenRevoked"];
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FLEET_SCOPE_REQUIRED, FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FLEET_SCOPE_REQUIRED" | "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listEmbeddingSpaces: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Spaces, live first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: number;
                            name: string;
                            /** @enum {string} */
                            provider: "local" | "openai";
                            model: string;
                            dimensions: number;
                            baseUrl: string | null;
                            apiKeyEnv: string | null;
                            chunker: {
                                version: string;
                                targetChars: number | null;
                            };
                            textsPerMinute: number | null;
                            pricePerMillionTokens: number | null;
                            isDefault: boolean;
                            /** Format: date-time */
                            retiredAt: string | null;
                            /** Format: date-time */
                            createdAt: string;
                            createdBy: string;
                            tenantsActive: number;
                            openMigrations: number;
                            indexBuilt: boolean;
                        }[];
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    createEmbeddingSpace: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    name: string;
                    /** @enum {string} */
                    provider: "local" | "openai";
                    model?: string;
                    dimensions: number;
                    /** Format: uri */
                    baseUrl?: string;
                    apiKeyEnv?: string;
                    chunker?: {
                        targetChars?: number;
                    };
                    textsPerMinute?: number;
                    pricePerMillionTokens?: number;
                };
            };
        };
        responses: {
            /** @description Registered. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        /** @enum {string} */
                        provider: "local" | "openai";
                        model: string;
                        dimensions: number;
                        baseUrl: string | null;
                        apiKeyEnv: string | null;
                        chunker: {
                            version: string;
                            targetChars: number | null;
                        };
                        textsPerMinute: number | null;
                        pricePerMillionTokens: number | null;
                        isDefault: boolean;
                        /** Format: date-time */
                        retiredAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        tenantsActive: number;
                        openMigrations: number;
                        indexBuilt: boolean;
                    };
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FLEET_SCOPE_REQUIRED, FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FLEET_SCOPE_REQUIRED" | "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description SPACE_NAME_TAKEN */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "SPACE_NAME_TAKEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description SPACE_DIMENSIONS_MISMATCH, SPACE_KEY_MISSING, SPACE_UNREACHABLE */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "SPACE_DIMENSIONS_MISMATCH" | "SPACE_KEY_MISSING" | "SPACE_UNREACHABLE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    updateEmbeddingSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** Format: uri */
                    baseUrl?: string | null;
                    apiKeyEnv?: string | null;
                    textsPerMinute?: number | null;
                    pricePerMillionTokens?: number | null;
                };
            };
        };
        responses: {
            /** @description Updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        /** @enum {string} */
                        provider: "local" | "openai";
                        model: string;
                        dimensions: number;
                        baseUrl: string | null;
                        apiKeyEnv: string | null;
                        chunker: {
                            version: string;
                            targetChars: number | null;
                        };
                        textsPerMinute: number | null;
                        pricePerMillionTokens: number | null;
                        isDefault: boolean;
                        /** Format: date-time */
                        retiredAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        tenantsActive: number;
                        openMigrations: number;
                        indexBuilt: boolean;
                    };
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FLEET_SCOPE_REQUIRED, FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FLEET_SCOPE_REQUIRED" | "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    retireEmbeddingSpace: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Retired (or already retired). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: number;
                        name: string;
                        /** @enum {string} */
                        provider: "local" | "openai";
                        model: string;
                        dimensions: number;
                        baseUrl: string | null;
                        apiKeyEnv: string | null;
                        chunker: {
                            version: string;
                            targetChars: number | null;
                        };
                        textsPerMinute: number | null;
                        pricePerMillionTokens: number | null;
                        isDefault: boolean;
                        /** Format: date-time */
                        retiredAt: string | null;
                        /** Format: date-time */
                        createdAt: string;
                        createdBy: string;
                        tenantsActive: number;
                        openMigrations: number;
                        indexBuilt: boolean;
                    };
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FLEET_SCOPE_REQUIRED, FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FLEET_SCOPE_REQUIRED" | "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description SPACE_IN_USE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "SPACE_IN_USE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    startFleetMigration: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    from?: string;
                    space: string;
                    autoSwitch?: boolean;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Started. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        started: {
                            id: string;
                            tenant: string;
                            /** @enum {string} */
                            state: "BUILDING" | "READY" | "SWITCHED" | "SWITCHED_BACK" | "ABORTED" | "FINISHED";
                            from: {
                                id: number;
                                name: string;
                                model: string;
                                dimensions: number;
                            };
                            to: {
                                id: number;
                                name: string;
                                model: string;
                                dimensions: number;
                            };
                            active: string;
                            shadow: string | null;
                            autoSwitch: boolean;
                            documents: {
                                total: number;
                                built: number;
                                failed: number;
                                pending: number;
                                running: number;
                            };
                            failures: {
                                errorCode: string;
                                count: number;
                            }[];
                            textsEmbedded: number;
                            tokensEmbedded: number;
                            estimatedCostUsd: number | null;
                            documentsPerMinute: number | null;
                            etaSeconds: number | null;
                            indexBuilt: boolean;
                            evaluation?: unknown;
                            reason: string | null;
                            createdBy: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            readyAt: string | null;
                            /** Format: date-time */
                            switchedAt: string | null;
                            switchedBy: string | null;
                            /** Format: date-time */
                            endedAt: string | null;
                            endedBy: string | null;
                        }[];
                        skipped: {
                            tenant: string;
                            reason: string;
                        }[];
                    };
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FLEET_SCOPE_REQUIRED, FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FLEET_SCOPE_REQUIRED" | "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listMigrations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Up to 50. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: {
                            id: string;
                            tenant: string;
                            /** @enum {string} */
                            state: "BUILDING" | "READY" | "SWITCHED" | "SWITCHED_BACK" | "ABORTED" | "FINISHED";
                            from: {
                                id: number;
                                name: string;
                                model: string;
                                dimensions: number;
                            };
                            to: {
                                id: number;
                                name: string;
                                model: string;
                                dimensions: number;
                            };
                            active: string;
                            shadow: string | null;
                            autoSwitch: boolean;
                            documents: {
                                total: number;
                                built: number;
                                failed: number;
                                pending: number;
                                running: number;
                            };
                            failures: {
                                errorCode: string;
                                count: number;
                            }[];
                            textsEmbedded: number;
                            tokensEmbedded: number;
                            estimatedCostUsd: number | null;
                            documentsPerMinute: number | null;
                            etaSeconds: number | null;
                            indexBuilt: boolean;
                            evaluation?: unknown;
                            reason: string | null;
                            createdBy: string;
                            /** Format: date-time */
                            createdAt: string;
                            /** Format: date-time */
                            readyAt: string | null;
                            /** Format: date-time */
                            switchedAt: string | null;
                            switchedBy: string | null;
                            /** Format: date-time */
                            endedAt: string | null;
                            endedBy: string | null;
                        }[];
                    };
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    startMigration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    space: string;
                    autoSwitch?: boolean;
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Started (BUILDING). */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        tenant: string;
                        /** @enum {string} */
                        state: "BUILDING" | "READY" | "SWITCHED" | "SWITCHED_BACK" | "ABORTED" | "FINISHED";
                        from: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        to: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        active: string;
                        shadow: string | null;
                        autoSwitch: boolean;
                        documents: {
                            total: number;
                            built: number;
                            failed: number;
                            pending: number;
                            running: number;
                        };
                        failures: {
                            errorCode: string;
                            count: number;
                        }[];
                        textsEmbedded: number;
                        tokensEmbedded: number;
                        estimatedCostUsd: number | null;
                        documentsPerMinute: number | null;
                        etaSeconds: number | null;
                        indexBuilt: boolean;
                        evaluation?: unknown;
                        reason: string | null;
                        createdBy: string;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        readyAt: string | null;
                        /** Format: date-time */
                        switchedAt: string | null;
                        switchedBy: string | null;
                        /** Format: date-time */
                        endedAt: string | null;
                        endedBy: string | null;
                    };
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description INVALID_STATE, MIGRATION_OPEN, SPACE_RETIRED */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_STATE" | "MIGRATION_OPEN" | "SPACE_RETIRED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getMigration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Progress is counted now: documents built / total, failures by code, texts, tokens, cost, ETA. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        tenant: string;
                        /** @enum {string} */
                        state: "BUILDING" | "READY" | "SWITCHED" | "SWITCHED_BACK" | "ABORTED" | "FINISHED";
                        from: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        to: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        active: string;
                        shadow: string | null;
                        autoSwitch: boolean;
                        documents: {
                            total: number;
                            built: number;
                            failed: number;
                            pending: number;
                            running: number;
                        };
                        failures: {
                            errorCode: string;
                            count: number;
                        }[];
                        textsEmbedded: number;
                        tokensEmbedded: number;
                        estimatedCostUsd: number | null;
                        documentsPerMinute: number | null;
                        etaSeconds: number | null;
                        indexBuilt: boolean;
                        evaluation?: unknown;
                        reason: string | null;
                        createdBy: string;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        readyAt: string | null;
                        /** Format: date-time */
                        switchedAt: string | null;
                        switchedBy: string | null;
                        /** Format: date-time */
                        endedAt: string | null;
                        endedBy: string | null;
                    };
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    switchMigration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string;
                    force?: boolean;
                };
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        tenant: string;
                        /** @enum {string} */
                        state: "BUILDING" | "READY" | "SWITCHED" | "SWITCHED_BACK" | "ABORTED" | "FINISHED";
                        from: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        to: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        active: string;
                        shadow: string | null;
                        autoSwitch: boolean;
                        documents: {
                            total: number;
                            built: number;
                            failed: number;
                            pending: number;
                            running: number;
                        };
                        failures: {
                            errorCode: string;
                            count: number;
                        }[];
                        textsEmbedded: number;
                        tokensEmbedded: number;
                        estimatedCostUsd: number | null;
                        documentsPerMinute: number | null;
                        etaSeconds: number | null;
                        indexBuilt: boolean;
                        evaluation?: unknown;
                        reason: string | null;
                        createdBy: string;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        readyAt: string | null;
                        /** Format: date-time */
                        switchedAt: string | null;
                        switchedBy: string | null;
                        /** Format: date-time */
                        endedAt: string | null;
                        endedBy: string | null;
                    };
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description EVALUATION_REGRESSED, INVALID_STATE, MIGRATION_NOT_READY */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "EVALUATION_REGRESSED" | "INVALID_STATE" | "MIGRATION_NOT_READY";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    switchBackMigration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        tenant: string;
                        /** @enum {string} */
                        state: "BUILDING" | "READY" | "SWITCHED" | "SWITCHED_BACK" | "ABORTED" | "FINISHED";
                        from: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        to: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        active: string;
                        shadow: string | null;
                        autoSwitch: boolean;
                        documents: {
                            total: number;
                            built: number;
                            failed: number;
                            pending: number;
                            running: number;
                        };
                        failures: {
                            errorCode: string;
                            count: number;
                        }[];
                        textsEmbedded: number;
                        tokensEmbedded: number;
                        estimatedCostUsd: number | null;
                        documentsPerMinute: number | null;
                        etaSeconds: number | null;
                        indexBuilt: boolean;
                        evaluation?: unknown;
                        reason: string | null;
                        createdBy: string;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        readyAt: string | null;
                        /** Format: date-time */
                        switchedAt: string | null;
                        switchedBy: string | null;
                        /** Format: date-time */
                        endedAt: string | null;
                        endedBy: string | null;
                    };
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description INVALID_STATE, MIGRATION_NOT_READY */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_STATE" | "MIGRATION_NOT_READY";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    abortMigration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        tenant: string;
                        /** @enum {string} */
                        state: "BUILDING" | "READY" | "SWITCHED" | "SWITCHED_BACK" | "ABORTED" | "FINISHED";
                        from: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        to: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        active: string;
                        shadow: string | null;
                        autoSwitch: boolean;
                        documents: {
                            total: number;
                            built: number;
                            failed: number;
                            pending: number;
                            running: number;
                        };
                        failures: {
                            errorCode: string;
                            count: number;
                        }[];
                        textsEmbedded: number;
                        tokensEmbedded: number;
                        estimatedCostUsd: number | null;
                        documentsPerMinute: number | null;
                        etaSeconds: number | null;
                        indexBuilt: boolean;
                        evaluation?: unknown;
                        reason: string | null;
                        createdBy: string;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        readyAt: string | null;
                        /** Format: date-time */
                        switchedAt: string | null;
                        switchedBy: string | null;
                        /** Format: date-time */
                        endedAt: string | null;
                        endedBy: string | null;
                    };
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description INVALID_STATE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_STATE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    finishMigration: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Done. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        id: string;
                        tenant: string;
                        /** @enum {string} */
                        state: "BUILDING" | "READY" | "SWITCHED" | "SWITCHED_BACK" | "ABORTED" | "FINISHED";
                        from: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        to: {
                            id: number;
                            name: string;
                            model: string;
                            dimensions: number;
                        };
                        active: string;
                        shadow: string | null;
                        autoSwitch: boolean;
                        documents: {
                            total: number;
                            built: number;
                            failed: number;
                            pending: number;
                            running: number;
                        };
                        failures: {
                            errorCode: string;
                            count: number;
                        }[];
                        textsEmbedded: number;
                        tokensEmbedded: number;
                        estimatedCostUsd: number | null;
                        documentsPerMinute: number | null;
                        etaSeconds: number | null;
                        indexBuilt: boolean;
                        evaluation?: unknown;
                        reason: string | null;
                        createdBy: string;
                        /** Format: date-time */
                        createdAt: string;
                        /** Format: date-time */
                        readyAt: string | null;
                        /** Format: date-time */
                        switchedAt: string | null;
                        switchedBy: string | null;
                        /** Format: date-time */
                        endedAt: string | null;
                        endedBy: string | null;
                    };
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description INVALID_STATE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_STATE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getEvaluationSet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The newest version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EvaluationSet"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    putEvaluationSet: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EvaluationSetBody"];
            };
        };
        responses: {
            /** @description The new version. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EvaluationSet"];
                };
            };
            /** @description EVALUATION_SET_INVALID, INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "EVALUATION_SET_INVALID" | "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH, PRINCIPALS_NOT_ALLOWED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH" | "PRINCIPALS_NOT_ALLOWED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listEvaluations: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Up to 100. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        items: components["schemas"]["EvaluationRunSummary"][];
                    };
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    startEvaluation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    space?: string;
                    /**
                     * @description vector: nearest chunks by embedding (score = cosine similarity); text: full-text match with the tenant's text search configuration (score = ts_rank_cd); hybrid (default): both, fused by reciprocal rank fusion with k = 60 (score = the fused score).
                     * @enum {string}
                     */
                    mode?: "vector" | "text" | "hybrid";
                    topK?: number;
                };
            };
        };
        responses: {
            /** @description Queued. */
            202: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EvaluationRunSummary"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH, PRINCIPALS_NOT_ALLOWED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH" | "PRINCIPALS_NOT_ALLOWED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description INVALID_STATE */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_STATE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getEvaluation: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The run. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EvaluationRun"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listFreshnessSlo: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Worst first: least budget left. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FreshnessSloList"];
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    getFreshnessSlo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The figures over the window. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FreshnessSloView"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    putFreshnessSlo: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FreshnessSloBody"];
            };
        };
        responses: {
            /** @description The figures under the new objective. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FreshnessSloView"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, SLO_INVALID, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "SLO_INVALID" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    whyNotFound: {
        parameters: {
            query: {
                query: string;
                /** @description Comma-separated principals whose view is searched (as in search's principals). */
                principals?: string;
                /** @description vector: nearest chunks by embedding (score = cosine similarity); text: full-text match with the tenant's text search configuration (score = ts_rank_cd); hybrid (default): both, fused by reciprocal rank fusion with k = 60 (score = the fused score). */
                mode?: "vector" | "text" | "hybrid";
                topK?: number;
            };
            header?: never;
            path: {
                tenant: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The diagnosis (null when the document is in the first 10). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WhyResult"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, PRINCIPALS_NOT_ALLOWED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "PRINCIPALS_NOT_ALLOWED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    whyNotFoundPost: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                tenant: string;
                key: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    query: string;
                    principals?: string[];
                    /**
                     * @description vector: nearest chunks by embedding (score = cosine similarity); text: full-text match with the tenant's text search configuration (score = ts_rank_cd); hybrid (default): both, fused by reciprocal rank fusion with k = 60 (score = the fused score).
                     * @enum {string}
                     */
                    mode?: "vector" | "text" | "hybrid";
                    topK?: number;
                };
            };
        };
        responses: {
            /** @description The diagnosis (null when the document is in the first 10). */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WhyResult"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH, PRINCIPALS_NOT_ALLOWED */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH" | "PRINCIPALS_NOT_ALLOWED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listWebhookEndpoints: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Endpoints of the caller's tenants, with delivery counts; never their secrets. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointList"];
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    createWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    tenant: string;
                    url: string;
                    eventTypes: ("document.searchable" | "document.failed" | "document.deleted" | "task.dead" | "migration.started" | "migration.ready" | "migration.switched" | "migration.switched_back" | "migration.aborted" | "migration.finished")[];
                    /** @default  */
                    description?: string;
                    /** @default true */
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Created, with its signing secret. */
            201: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED, WEBHOOK_URL_INVALID, WEBHOOK_URL_PRIVATE */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED" | "WEBHOOK_URL_INVALID" | "WEBHOOK_URL_PRIVATE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    deleteWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Removed. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointDeleted"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    updateWebhookEndpoint: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    url?: string;
                    eventTypes?: ("document.searchable" | "document.failed" | "document.deleted" | "task.dead" | "migration.started" | "migration.ready" | "migration.switched" | "migration.switched_back" | "migration.aborted" | "migration.finished")[];
                    description?: string;
                    enabled?: boolean;
                };
            };
        };
        responses: {
            /** @description Updated. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpoint"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED, WEBHOOK_URL_INVALID, WEBHOOK_URL_PRIVATE */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED" | "WEBHOOK_URL_INVALID" | "WEBHOOK_URL_PRIVATE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    rotateWebhookSecret: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint with its new secret, shown once. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecret"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    listWebhookDeliveries: {
        parameters: {
            query?: {
                limit?: number;
                cursor?: string;
            };
            header?: never;
            path: {
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description Newest first. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
    redeliverWebhook: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                id: string;
                deliveryId: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": {
                    reason?: string;
                };
            };
        };
        responses: {
            /** @description Queued for sending now. */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDelivery"];
                };
            };
            /** @description INVALID_ENCODING, INVALID_JSON, VALIDATION_FAILED */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "INVALID_ENCODING" | "INVALID_JSON" | "VALIDATION_FAILED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNAUTHORIZED */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNAUTHORIZED";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description FORBIDDEN, ORIGIN_MISMATCH */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "FORBIDDEN" | "ORIGIN_MISMATCH";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description NOT_FOUND */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "NOT_FOUND";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description DELIVERY_IN_FLIGHT */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "DELIVERY_IN_FLIGHT";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description PAYLOAD_TOO_LARGE */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "PAYLOAD_TOO_LARGE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            /** @description UNSUPPORTED_MEDIA_TYPE */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        error: {
                            /** @enum {string} */
                            code: "UNSUPPORTED_MEDIA_TYPE";
                            message: string;
                            details?: {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
        };
    };
}
