import type { Metadata } from "next";
import type { ReactNode } from "react";
import { openApiDocument } from "@/lib/http/openapi";
import "./api-docs.css";

export const metadata: Metadata = { title: "API reference" };

// The API reference, rendered on the server from the OpenAPI document the API serves
// (/api/openapi.json): operations by tag, their parameters, bodies, answers and error codes, then
// the shared schemas. Plain HTML, no script and nothing fetched from elsewhere.

type Schema = {
  $ref?: string;
  type?: string | string[];
  format?: string;
  pattern?: string;
  enum?: unknown[];
  const?: unknown;
  items?: Schema;
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  description?: string;
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  contentMediaType?: string;
};
type Parameter = { name: string; in: string; required?: boolean; description?: string; schema: Schema };
type Media = Record<string, { schema: Schema }>;
type Operation = {
  operationId: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Media };
  responses: Record<string, { description: string; content?: Media }>;
};
type Doc = {
  info: { title: string; version: string; description?: string };
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components?: { schemas?: Record<string, Schema> };
};

const refName = (ref: string) => ref.split("/").pop()!;

/** Descriptions mark code with backticks, as Markdown does; only that much is rendered. */
function Prose({ text }: { text: string }) {
  return (
    <>
      {text
        .split(/(`[^`]+`)/)
        .map((part, i) =>
          part.startsWith("`") && part.endsWith("`") && part.length > 1 ? (
            <code key={i}>{part.slice(1, -1)}</code>
          ) : (
            part
          ),
        )}
    </>
  );
}

function constraints(s: Schema): string[] {
  const out: string[] = [];
  if (s.format) out.push(s.format);
  if (s.pattern) out.push(`pattern ${s.pattern}`);
  if (s.minLength !== undefined || s.maxLength !== undefined)
    out.push(`length ${s.minLength ?? 0}–${s.maxLength ?? "∞"}`);
  if (s.minimum !== undefined || s.maximum !== undefined) out.push(`${s.minimum ?? "−∞"} to ${s.maximum ?? "∞"}`);
  if (s.minItems !== undefined || s.maxItems !== undefined) out.push(`${s.minItems ?? 0}–${s.maxItems ?? "∞"} items`);
  if (s.default !== undefined) out.push(`default ${JSON.stringify(s.default)}`);
  if (s.contentMediaType) out.push(s.contentMediaType);
  return out;
}

/** A schema as a compact type: names link to the shared schemas, objects become a property table. */
function SchemaView({ schema }: { schema: Schema }): ReactNode {
  if (schema.$ref) {
    const name = refName(schema.$ref);
    return (
      <a className="mono" href={`#schema-${name}`}>
        {name}
      </a>
    );
  }
  const variants = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (variants) {
    return (
      <span className="api-union">
        {schema.allOf ? "all of" : "one of"}
        <ul>
          {variants.map((v, i) => (
            <li key={i}>
              <SchemaView schema={v} />
            </li>
          ))}
        </ul>
      </span>
    );
  }
  if (schema.properties) return <PropertyTable schema={schema} />;
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const notes = constraints(schema);
  return (
    <span>
      {schema.enum ? (
        <span className="api-enum">
          {schema.enum.map((v) => (
            <code key={String(v)} className="code-chip code-chip--neutral">
              {String(v)}
            </code>
          ))}
        </span>
      ) : schema.const !== undefined ? (
        <code className="code-chip code-chip--neutral">{JSON.stringify(schema.const)}</code>
      ) : types.includes("array") && schema.items ? (
        <>
          array of <SchemaView schema={schema.items} />
        </>
      ) : (
        <span className="mono">{types.length ? types.join(" | ") : "any JSON"}</span>
      )}
      {schema.enum && types.includes("null") ? <span className="mono"> | null</span> : null}
      {notes.length ? <span className="muted"> ({notes.join(", ")})</span> : null}
      {schema.description ? <span className="api-desc"> {schema.description}</span> : null}
    </span>
  );
}

function PropertyTable({ schema }: { schema: Schema }) {
  const required = new Set(schema.required ?? []);
  return (
    <div className="table-wrap">
      <table className="table api-props">
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Type</th>
          </tr>
        </thead>
        <tbody>
          {Object.entries(schema.properties ?? {}).map(([name, s]) => (
            <tr key={name}>
              <td className="mono nowrap">
                {name}
                {required.has(name) ? <abbr title="required">*</abbr> : <span className="muted">?</span>}
              </td>
              <td>
                <SchemaView schema={s} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {schema.additionalProperties === false ? <p className="muted api-note">Other fields are refused.</p> : null}
      {schema.description ? <p className="api-desc">{schema.description}</p> : null}
    </div>
  );
}

/** An error answer's codes, read from its schema's `error.code` enum. */
function errorCodesOf(media: Media | undefined): string[] | null {
  const code = media?.["application/json"]?.schema.properties?.error?.properties?.code;
  return code?.enum ? code.enum.map(String) : null;
}

function OperationView({ method, path, op }: { method: string; path: string; op: Operation }) {
  const params = op.parameters ?? [];
  return (
    <section className="card api-op" id={op.operationId} aria-labelledby={`${op.operationId}-title`}>
      <h3 className="api-op__title" id={`${op.operationId}-title`}>
        <span className={`api-method api-method--${method}`}>{method.toUpperCase()}</span>{" "}
        <span className="mono">{path}</span>
      </h3>
      {op.summary ? <p className="api-op__summary">{op.summary}</p> : null}
      {(op.description ?? "").split("\n\n").map((p, i) => (
        <p key={i} className="api-desc">
          <Prose text={p} />
        </p>
      ))}
      {params.length ? (
        <>
          <h4 className="section-title">Parameters</h4>
          <div className="table-wrap">
            <table className="table api-props">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">In</th>
                  <th scope="col">Type</th>
                </tr>
              </thead>
              <tbody>
                {params.map((p) => (
                  <tr key={`${p.in}-${p.name}`}>
                    <td className="mono nowrap">
                      {p.name}
                      {p.required ? <abbr title="required">*</abbr> : <span className="muted">?</span>}
                    </td>
                    <td>{p.in}</td>
                    <td>
                      <SchemaView schema={p.schema} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
      {op.requestBody ? (
        <>
          <h4 className="section-title">Request body{op.requestBody.required ? "" : " (optional)"}</h4>
          {Object.entries(op.requestBody.content).map(([type, m]) => (
            <div key={type} className="api-media">
              <p className="mono muted">{type}</p>
              <SchemaView schema={m.schema} />
            </div>
          ))}
        </>
      ) : null}
      <h4 className="section-title">Responses</h4>
      <dl className="api-responses">
        {Object.entries(op.responses).map(([status, r]) => {
          const codes = Number(status) >= 400 ? errorCodesOf(r.content) : null;
          return (
            <div key={status} className="api-response">
              <dt>
                <span className={`pill api-status api-status--${status[0]}xx`}>{status}</span>
              </dt>
              <dd>
                {codes ? (
                  <span className="api-enum">
                    {codes.map((c) => (
                      <code key={c} className="code-chip code-chip--neutral">
                        {c}
                      </code>
                    ))}
                  </span>
                ) : (
                  <>
                    <p>{r.description}</p>
                    {Object.entries(r.content ?? {}).map(([type, m]) => (
                      <div key={type} className="api-media">
                        <p className="mono muted">{type}</p>
                        <SchemaView schema={m.schema} />
                      </div>
                    ))}
                  </>
                )}
              </dd>
            </div>
          );
        })}
      </dl>
    </section>
  );
}

export default function ApiDocsPage() {
  const doc = openApiDocument() as unknown as Doc;
  const ops = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method, op })),
  );
  const tags = (doc.tags ?? []).filter((t) => ops.some((o) => o.op.tags?.includes(t.name)));
  const [lead, ...notes] = (doc.info.description ?? "").split("\n\n");
  return (
    <div className="page api-docs">
      <div className="page__header">
        <div>
          <h1 className="page__title">API reference</h1>
          <p className="page__lead">
            {lead} Version {doc.info.version}; the machine-readable document is{" "}
            <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).
          </p>
        </div>
      </div>
      <section className="card api-intro" aria-label="Conventions">
        {notes.map((n, i) => (
          <p key={i}>
            <Prose text={n} />
          </p>
        ))}
      </section>
      <nav className="card api-toc" aria-label="Operations">
        {tags.map((t) => (
          <div key={t.name}>
            <h2 className="section-title">
              <a href={`#tag-${t.name}`}>{t.name}</a>
            </h2>
            <ul>
              {ops
                .filter((o) => o.op.tags?.includes(t.name))
                .map((o) => (
                  <li key={o.op.operationId}>
                    <a href={`#${o.op.operationId}`}>
                      <span className={`api-method api-method--${o.method}`}>{o.method.toUpperCase()}</span>{" "}
                      <span className="mono">{o.path}</span>
                    </a>
                  </li>
                ))}
            </ul>
          </div>
        ))}
      </nav>
      {tags.map((t) => (
        <section key={t.name} aria-labelledby={`tag-${t.name}`} className="api-tag">
          <h2 className="api-tag__title" id={`tag-${t.name}`}>
            {t.name}
          </h2>
          {t.description ? <p className="muted">{t.description}</p> : null}
          {ops
            .filter((o) => o.op.tags?.includes(t.name))
            .map((o) => (
              <OperationView key={o.op.operationId} method={o.method} path={o.path} op={o.op} />
            ))}
        </section>
      ))}
      <section aria-labelledby="schemas" className="api-tag">
        <h2 className="api-tag__title" id="schemas">
          Schemas
        </h2>
        {Object.entries(doc.components?.schemas ?? {}).map(([name, s]) => (
          <section key={name} className="card api-op" id={`schema-${name}`} aria-label={name}>
            <h3 className="api-op__title mono">{name}</h3>
            <SchemaView schema={s} />
          </section>
        ))}
      </section>
    </div>
  );
}
