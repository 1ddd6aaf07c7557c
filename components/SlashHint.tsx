/** The "/" key hint beside a search box's label (useSlashToFocus wires the key itself). */
export function SlashHint() {
  return (
    <kbd className="kbd" aria-hidden="true" title="Press / to jump here">
      /
    </kbd>
  );
}
