// Icons of the admin console, in the same 20×20 stroke style as components/shell/icons.tsx.
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
