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
      <path d="M7 6.5v11M11 9.5v8M15 6.5v11M15 6.5l3 3" stroke="currentColor" strokeWidth="2" strokeLinecap="round" strokeLinejoin="round" fill="none" />
    </svg>
  ),
};
