/**
 * Ranking rules of the partner inventory search (pure; the lexicon is passed in).
 *
 * - `segment`: splits a domain label into words (`cheapflights` → `cheap`, `flights`) by
 *   dynamic programming over dictionary words, preferring few, long, frequent words.
 * - `keywordScore`: trigram similarity (from PostgreSQL), prefix, substring and word-segment match.
 * - `semanticScore`: query words against label words through related concepts (synonyms,
 *   broader and narrower terms) from a lexical knowledge base.
 * - `fuse`: reciprocal rank fusion of several rankings.
 * - `ndcgAt`: evaluation metric for the labelled evaluation set.
 */

export interface Lexicon {
  readonly has: (word: string) => boolean
  readonly frequency: (word: string) => number
  readonly related: (word: string) => ReadonlyMap<string, number>
  readonly baseForm: (word: string) => string
}

/** Lowercase alphanumeric tokens of a free-text query (`Cheap-Flights.com` → `cheap`, `flights`, `com`). */
export const tokens = (q: string): Array<string> => q.toLowerCase().split(/[^a-z0-9]+/).filter((t) => t.length > 0)

/** Query tokens without a trailing TLD-looking token when the query was written as a domain. */
export const queryTokens = (q: string): Array<string> => {
  const t = tokens(q)
  return /\.[a-z]{2,}\s*$/i.test(q.trim()) && t.length > 1 ? t.slice(0, -1) : t
}

const SHORT_WORDS = new Set([
  "a",
  "i",
  "my",
  "go",
  "me",
  "we",
  "us",
  "up",
  "on",
  "in",
  "at",
  "to",
  "of",
  "tv",
  "ai",
  "it",
  "be",
  "do",
  "no",
  "so",
  "hi",
  "by",
  "or"
])

/** Splits a label into words; unknown stretches stay whole. */
export const segment = (label: string, lex: Lexicon): Array<string> => {
  const s = label.toLowerCase()
  const parts = s.split(/[^a-z0-9]+/).filter((p) => p.length > 0)
  const out: Array<string> = []
  for (const part of parts) {
    const n = part.length
    const best: Array<number> = new Array(n + 1).fill(Number.POSITIVE_INFINITY)
    const back: Array<number> = new Array(n + 1).fill(0)
    best[0] = 0
    for (let i = 1; i <= n; i++) {
      for (let j = Math.max(0, i - 24); j < i; j++) {
        if (best[j] === Number.POSITIVE_INFINITY) continue
        const w = part.slice(j, i)
        let cost: number
        if (/^\d+$/.test(w)) {
          cost = 1
        } else if (isWord(w, lex)) {
          const freq = lex.frequency(lex.baseForm(w))
          cost = 1 + (w.length <= 2 ? 1.2 : w.length === 3 ? 0.3 : 0) - Math.min(Math.log10(1 + freq) / 5, 0.4)
        } else {
          cost = 3 + 0.6 * w.length
        }
        if (best[j] + cost < best[i]) {
          best[i] = best[j] + cost
          back[i] = j
        }
      }
    }
    const words: Array<string> = []
    for (let i = n; i > 0; i = back[i]) words.unshift(part.slice(back[i], i))
    out.push(...words)
  }
  return out
}

const isWord = (w: string, lex: Lexicon) =>
  (w.length >= 3 || SHORT_WORDS.has(w)) && (lex.has(w) || lex.has(lex.baseForm(w)))

/** Query words: tokens segmented and reduced to base forms. */
export const queryWords = (q: string, lex: Lexicon): Array<string> => {
  const words = queryTokens(q).flatMap((t) => segment(t, lex)).map((w) => lex.baseForm(w))
  return [...new Set(words)]
}

export interface KeywordSignals {
  /** pg_trgm similarity(label, compact query), 0–1. */
  readonly similarity: number
  readonly label: string
}

/** Keyword relevance: trigram similarity, prefix, substring, and exact word-segment matches. */
export const keywordScore = (signals: KeywordSignals, q: string, lex: Lexicon): number => {
  const compact = queryTokens(q).join("")
  const words = queryWords(q, lex)
  const label = signals.label.toLowerCase()
  const labelWords = new Set(segment(label, lex).map((w) => lex.baseForm(w)))
  let score = signals.similarity
  if (label === compact) score += 1.5
  if (compact.length > 0 && label.startsWith(compact)) score += 0.4
  else if (compact.length > 0 && label.includes(compact)) score += 0.25
  if (words.length > 0) {
    const exact = words.filter((w) => labelWords.has(w)).length / words.length
    const partial = words.filter((w) => w.length >= 3 && label.includes(w)).length / words.length
    score += 0.6 * exact + 0.2 * partial
  }
  return score
}

/** Concepts a query expands to, best weight per term (the query words themselves weigh 1). */
export const expandQuery = (words: ReadonlyArray<string>, lex: Lexicon): Map<string, number> => {
  const out = new Map<string, number>()
  for (const w of words) {
    out.set(w, 1)
    for (const [term, weight] of lex.related(w)) {
      if (!/^[a-z0-9]+$/.test(term)) continue
      if ((out.get(term) ?? 0) < weight) out.set(term, weight)
    }
  }
  return out
}

/**
 * Semantic relevance of a label to query words, 0–1: for each query word the best match among
 * the label's words (same word 1; a related concept its weight; the relation seen from the
 * label word's side counts a little less), averaged over the query words.
 */
export const semanticScore = (queryWordList: ReadonlyArray<string>, label: string, lex: Lexicon): number => {
  if (queryWordList.length === 0) return 0
  const labelWords = [...new Set(segment(label, lex).map((w) => lex.baseForm(w)))]
  let total = 0
  for (const q of queryWordList) {
    const rel = lex.related(q)
    let best = 0
    for (const lw of labelWords) {
      const s = lw === q ? 1 : Math.max(rel.get(lw) ?? 0, 0.85 * (lex.related(lw).get(q) ?? 0))
      if (s > best) best = s
    }
    total += best
  }
  return total / queryWordList.length
}

/** Reciprocal rank fusion: Σ 1 / (k + rank), rank from 1, over the rankings an item appears in. */
export const fuse = <K>(
  rankings: ReadonlyArray<ReadonlyArray<K>>,
  k = 60
): Array<{ readonly key: K; readonly score: number }> => {
  const scores = new Map<K, number>()
  for (const ranking of rankings) {
    ranking.forEach((key, i) => scores.set(key, (scores.get(key) ?? 0) + 1 / (k + i + 1)))
  }
  return [...scores].map(([key, score]) => ({ key, score })).sort((a, b) => b.score - a.score)
}

/** nDCG@k of a ranked list against graded relevance (missing = 0). */
export const ndcgAt = (ranked: ReadonlyArray<string>, relevance: Readonly<Record<string, number>>, k = 5): number => {
  const dcg = (gains: ReadonlyArray<number>) =>
    gains.slice(0, k).reduce((sum, g, i) => sum + (2 ** g - 1) / Math.log2(i + 2), 0)
  const ideal = dcg(Object.values(relevance).sort((a, b) => b - a))
  return ideal === 0 ? 0 : dcg(ranked.map((d) => relevance[d] ?? 0)) / ideal
}
