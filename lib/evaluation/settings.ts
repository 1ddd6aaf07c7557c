/** How much lower a candidate's nDCG@10 may be before a switch refuses it (EVALUATION_TOLERANCE). */
export const DEFAULT_EVALUATION_TOLERANCE = 0.02;
