// Inline 20×20 stroke icons (no icon font, no network).
import type { SVGProps } from "react";

function Icon(props: SVGProps<SVGSVGElement>) {
  return (
    <svg
      viewBox="0 0 20 20"
      width="18"
      height="18"
      fill="none"
      stroke="currentColor"
      strokeWidth="1.6"
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...props}
    />
  );
}

export const icons = {
  documents: (
    <Icon>
      <path d="M6 2.5h5.5L15 6v11.5H6z" />
      <path d="M11.5 2.5V6H15M8.5 10h4M8.5 13h4" />
    </Icon>
  ),
  api: (
    <Icon>
      <path d="M7 5l-4 5 4 5M13 5l4 5-4 5M11 4l-2 12" />
    </Icon>
  ),
  search: (
    <Icon>
      <circle cx="8.5" cy="8.5" r="5" />
      <path d="M12.5 12.5l4.5 4.5" />
    </Icon>
  ),
  overview: (
    <Icon>
      <rect x="3" y="3" width="6" height="6" rx="1" />
      <rect x="11" y="3" width="6" height="6" rx="1" />
      <rect x="3" y="11" width="6" height="6" rx="1" />
      <rect x="11" y="11" width="6" height="6" rx="1" />
    </Icon>
  ),
  tasks: (
    <Icon>
      <path d="M4 5h12M4 10h12M4 15h7" />
    </Icon>
  ),
  workers: (
    <Icon>
      <rect x="3" y="4" width="14" height="5" rx="1" />
      <rect x="3" y="11" width="14" height="5" rx="1" />
      <path d="M6 6.5h.01M6 13.5h.01" />
    </Icon>
  ),
  audit: (
    <Icon>
      <path d="M10 2.5l6 2.5v4.5c0 4-2.6 6.8-6 8-3.4-1.2-6-4-6-8V5z" />
      <path d="M7.5 10l2 2 3.5-4" />
    </Icon>
  ),
  signOut: (
    <Icon>
      <path d="M8 3.5H4.5v13H8M13 6.5l3.5 3.5-3.5 3.5M16.5 10H8" />
    </Icon>
  ),
  /** Index spaces: two stacked layers. */
  spaces: (
    <Icon>
      <path d="M10 3l7 3.5-7 3.5-7-3.5z" />
      <path d="M3 10l7 3.5 7-3.5M3 13.5L10 17l7-3.5" />
    </Icon>
  ),
  /** Tenants: three buildings of a campus. */
  tenants: (
    <Icon>
      <path d="M3 17V7l5-3v13M8 17V9l5-2v10M13 17v-6l4 1.5V17M2 17h16" />
    </Icon>
  ),
  /** Large index-spaces mark for empty states. */
  spacesLarge: (
    <Icon width="28" height="28">
      <path d="M10 3l7 3.5-7 3.5-7-3.5z" />
      <path d="M3 10l7 3.5 7-3.5M3 13.5L10 17l7-3.5" />
    </Icon>
  ),
  plus: (
    <Icon>
      <path d="M10 4v12M4 10h12" />
    </Icon>
  ),
  inbox: (
    <Icon width="28" height="28">
      <path d="M3 11l2.5-7h9L17 11v5H3z" />
      <path d="M3 11h4l1 2h4l1-2h4" />
    </Icon>
  ),
  logo: (
    <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false">
      <rect x="1" y="1" width="22" height="22" rx="6" fill="currentColor" opacity="0.16" />
      <path
        d="M7 6.5v11M11 9.5v8M15 6.5v11M15 6.5l3 3"
        stroke="currentColor"
        strokeWidth="2"
        strokeLinecap="round"
        strokeLinejoin="round"
        fill="none"
      />
    </svg>
  ),
};

/** Icons of the admin console, in the same style. */
export const adminIcons = {
  /** Nav item: a key. */
  admin: (
    <Icon>
      <circle cx="7" cy="10" r="3.5" />
      <path d="M10.5 10h7M15 10v3M17.5 10v2" />
    </Icon>
  ),
  key: (
    <Icon width="28" height="28">
      <circle cx="7" cy="10" r="3.5" />
      <path d="M10.5 10h7M15 10v3M17.5 10v2" />
    </Icon>
  ),
  users: (
    <Icon width="28" height="28">
      <circle cx="8" cy="7" r="3" />
      <path d="M2.5 17c.6-3 2.8-4.5 5.5-4.5s4.9 1.5 5.5 4.5" />
      <path d="M13 4.3a3 3 0 0 1 0 5.4M15 12.8c1.4.6 2.3 2 2.6 4.2" />
    </Icon>
  ),
  lock: (
    <Icon width="28" height="28">
      <rect x="4" y="9" width="12" height="8.5" rx="1.5" />
      <path d="M6.5 9V6.5a3.5 3.5 0 0 1 7 0V9M10 12.5v2" />
    </Icon>
  ),
  copy: (
    <Icon width="16" height="16">
      <rect x="7" y="7" width="10" height="10" rx="1.5" />
      <path d="M13 7V4.5A1.5 1.5 0 0 0 11.5 3h-7A1.5 1.5 0 0 0 3 4.5v7A1.5 1.5 0 0 0 4.5 13H7" />
    </Icon>
  ),
  check: (
    <Icon width="16" height="16">
      <path d="M4 10.5l4 4 8-9" />
    </Icon>
  ),
};
