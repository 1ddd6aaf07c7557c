/** Nav item for Webhooks: an arrow leaving a box (events sent out), drawn like the shell's 20×20 stroke icons. */
export const webhookIcon = (
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
  >
    <path d="M11 4H5.5A1.5 1.5 0 0 0 4 5.5v9A1.5 1.5 0 0 0 5.5 16h9a1.5 1.5 0 0 0 1.5-1.5V9" />
    <path d="M9 11l7-7" />
    <path d="M12 4h4v4" />
  </svg>
);
