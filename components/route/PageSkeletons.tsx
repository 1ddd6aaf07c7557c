import { BlockSkeleton, ListPageSkeleton, TableSkeleton } from "../States";

// loading.tsx fallbacks: the shape of the page that is coming (title, toolbar, cards, table), so
// nothing jumps when it arrives. Each carries a status text for screen readers.

function Status({ label }: { label: string }) {
  return (
    <span className="visually-hidden" role="status">
      {label}…
    </span>
  );
}

function Header({ title, lead = true }: { title: string; lead?: boolean }) {
  return (
    <div className="page__header">
      <div>
        <h1 className="page__title">{title}</h1>
        {lead ? <span className="skeleton skeleton--block skeleton--lead" aria-hidden="true" /> : null}
      </div>
    </div>
  );
}

export function OverviewSkeleton() {
  return (
    <div className="page" aria-busy="true" data-testid="page-skeleton">
      <Status label="Loading overview" />
      <Header title="Overview" />
      <div className="health skeleton-card" aria-hidden="true">
        <span className="skeleton skeleton--block" style={{ width: "40%" }} />
      </div>
      <div className="kpis" aria-hidden="true">
        {Array.from({ length: 9 }, (_, i) => (
          <div key={i} className="kpi">
            <BlockSkeleton lines={2} />
          </div>
        ))}
      </div>
      <div className="charts" aria-hidden="true">
        {Array.from({ length: 4 }, (_, i) => (
          <div key={i} className={`card card--padded chart${i === 0 ? " chart--wide" : ""}`}>
            <span className="skeleton skeleton--block" style={{ width: "30%" }} />
            <div className="skeleton skeleton--chart" />
          </div>
        ))}
      </div>
    </div>
  );
}

/** A list page: title, a filter toolbar and a table. */
export function ListSkeleton({
  title,
  columns,
  label,
  filters = 3,
}: {
  title: string;
  columns: number;
  label: string;
  filters?: number;
}) {
  return (
    <div className="page" aria-busy="true" data-testid="page-skeleton">
      <Header title={title} />
      <section className="card">
        <div className="toolbar" aria-hidden="true">
          {Array.from({ length: filters }, (_, i) => (
            <div key={i} className="field field--inline">
              <span className="skeleton" style={{ width: "45%" }} />
              <span className="skeleton skeleton--input" />
            </div>
          ))}
        </div>
        <TableSkeleton rows={8} columns={columns} label={label} />
      </section>
    </div>
  );
}

/** A detail page (document, task): breadcrumb, header with a state badge, a facts card, a table. */
export function DetailSkeleton({ label }: { label: string }) {
  return (
    <div className="page" aria-busy="true" data-testid="page-skeleton">
      <div className="breadcrumb" aria-hidden="true">
        <span className="skeleton" style={{ width: 220 }} />
      </div>
      <div className="doc-header" aria-hidden="true">
        <div className="doc-header__main" style={{ flex: 1 }}>
          <span className="skeleton skeleton--title" />
          <BlockSkeleton lines={1} />
        </div>
        <span className="skeleton skeleton--pill" />
      </div>
      <section className="card card--padded" aria-hidden="true">
        <BlockSkeleton lines={3} />
      </section>
      <section className="card">
        <TableSkeleton rows={4} columns={6} label={label} />
      </section>
    </div>
  );
}

export { ListPageSkeleton };
