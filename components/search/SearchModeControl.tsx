"use client";

import { useId } from "react";
import { SEARCH_MODES, type SearchMode } from "@/lib/search/modes";
import "./search-mode.css";

const LABELS: Record<SearchMode, { label: string; hint: string }> = {
  hybrid: { label: "Hybrid", hint: "Meaning and exact words, fused by rank" },
  vector: { label: "Vector", hint: "Nearest by meaning (embeddings)" },
  text: { label: "Text", hint: "Exact words, codes and phrases (full-text)" },
};
const ORDER: SearchMode[] = ["hybrid", "vector", "text"];

/** What a hit's score means in each mode (its tooltip). */
export const SCORE_MEANING: Record<SearchMode, string> = {
  hybrid: "Reciprocal rank fusion score: the sum of 1/(60 + rank) over the vector and text lists (higher is better)",
  vector: "Cosine similarity to the query (higher is closer)",
  text: "Full-text rank, ts_rank_cd (higher matches more closely)",
};

/**
 * A segmented control built on native radio buttons: Tab reaches the group once, arrow keys move
 * the choice, and screen readers announce a radio group with its legend.
 */
export function SearchModeControl({ value, onChange }: { value: SearchMode; onChange: (mode: SearchMode) => void }) {
  const name = useId();
  const hintId = useId();
  return (
    <fieldset className="search-mode" data-testid="search-mode" aria-describedby={hintId}>
      <legend className="field__label">Mode</legend>
      <div className="segmented">
        {ORDER.filter((m) => SEARCH_MODES.includes(m)).map((m) => (
          <label key={m} className="segmented__option" title={LABELS[m].hint}>
            <input
              type="radio"
              name={name}
              value={m}
              checked={value === m}
              onChange={() => onChange(m)}
              data-testid={`search-mode-${m}`}
            />
            <span>{LABELS[m].label}</span>
          </label>
        ))}
      </div>
      <p id={hintId} className="field__hint">
        {LABELS[value].hint}.
      </p>
    </fieldset>
  );
}
