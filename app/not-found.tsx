import type { Metadata } from "next";
import Link from "next/link";
import { icons } from "@/components/shell/icons";

export const metadata: Metadata = { title: "Page not found" };

const PLACES = [
  { href: "/overview", label: "Overview", hint: "queue, failures and drift at a glance", icon: icons.overview },
  { href: "/documents", label: "Documents", hint: "is a document searchable, and if not, why", icon: icons.documents },
  { href: "/tasks", label: "Tasks", hint: "indexing work, failures and retries", icon: icons.tasks },
  { href: "/search", label: "Search", hint: "try a query against the index", icon: icons.search },
];

/** Any unknown page. Outside the dashboard layout: it needs no session, and the links lead to sign-in if there is none. */
export default function NotFound() {
  return (
    <main className="standalone" id="main">
      <section className="card standalone__card route-state" data-testid="not-found-page">
        <Link href="/overview" className="brand brand--light" aria-label="Indexwright home">
          <span className="brand__mark brand__mark--light">{icons.logo}</span>
          <span>Indexwright</span>
        </Link>
        <p className="route-state__code" aria-hidden="true">
          404
        </p>
        <h1 className="route-state__title">This page does not exist</h1>
        <p className="route-state__body">
          The address may be misspelled, or the page may have moved. These are the places the dashboard has:
        </p>
        <ul className="route-state__links">
          {PLACES.map((p) => (
            <li key={p.href}>
              <Link href={p.href} className="route-state__link">
                <span className="route-state__link-icon" aria-hidden="true">
                  {p.icon}
                </span>
                <span>
                  <span className="route-state__link-label">{p.label}</span>
                  <span className="route-state__link-hint">{p.hint}</span>
                </span>
              </Link>
            </li>
          ))}
        </ul>
      </section>
    </main>
  );
}
