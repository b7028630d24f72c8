/**
 * The CLI's help as a reader sees it. @effect/cli renders help for a wide page: the command table
 * pads every usage to the longest one (lines of 200–480 columns), descriptions are never wrapped,
 * colours are on whether or not the output is a terminal, and a subcommand's USAGE line leaves out
 * the program (`$ partner` for `marketplace partner`). `helpText` reshapes that text:
 *
 * - ANSI escapes are removed unless `colour` (a terminal, and NO_COLOR unset);
 * - a command-table row (`  - usage<padding>description`) becomes the usage, then the description
 *   on the next line, indented; a row three commands deep, which @effect/cli prints with its first
 *   parent twice (`ledger ledger export statement`), names it once;
 * - every line is wrapped at `width` columns (escapes count as zero columns), continuation lines
 *   keep the line's indentation; a single word longer than the width stays whole;
 * - trailing spaces go; a `$ ` usage line starts with the program's name and the parent commands
 *   the reader typed (`$ create` for `marketplace user create --help` becomes
 *   `$ marketplace user create`): `words` are the command line's arguments, and the words before
 *   the usage's command name among them are its parents.
 *
 * Pure: words and their order are kept (that doubled parent aside), only spaces and line breaks change.
 */

const ANSI = /\x1b\[[0-9;]*m/g

export const stripAnsi = (text: string): string => text.replace(ANSI, "")

const visible = (text: string): number => stripAnsi(text).length

/** Wraps one line at `width`, continuation lines indented like the first (plus `hang`). */
const wrapLine = (line: string, width: number, hang = 0): Array<string> => {
  if (visible(line) <= width) return [line]
  const indent = /^\s*/.exec(stripAnsi(line))![0].length
  const words = line.trim().split(/ +/)
  const out: Array<string> = []
  let current = " ".repeat(indent)
  let empty = true
  for (const word of words) {
    const candidate = empty ? current + word : `${current} ${word}`
    if (!empty && visible(candidate) > width) {
      out.push(current)
      current = " ".repeat(indent + hang) + word
    } else {
      current = candidate
    }
    empty = false
  }
  out.push(current)
  return out
}

/** The commands typed before the usage line's own command: `user` for `$ create …` after `user create --help`. */
const parentsOf = (usage: string, words: ReadonlyArray<string>): ReadonlyArray<string> => {
  const command = usage.slice(2).split(" ")[0] ?? ""
  const firstOption = words.findIndex((w) => w.startsWith("-"))
  const typed = firstOption === -1 ? words : words.slice(0, firstOption)
  const at = typed.indexOf(command)
  return at > 0 ? typed.slice(0, at) : []
}

export const helpText = (
  text: string,
  options: {
    readonly width: number
    readonly colour: boolean
    readonly program: string
    /** The command line's arguments (process.argv without node and the script). */
    readonly words?: ReadonlyArray<string>
  }
): string => {
  const source = options.colour ? text : stripAnsi(text)
  const lines: Array<string> = []
  for (const raw of source.split("\n")) {
    let line = raw.replace(/\s+$/, "")
    const plain = stripAnsi(line)
    if (/^\$ /.test(plain) && !plain.startsWith(`$ ${options.program}`)) {
      line = line.replace("$ ", `$ ${[options.program, ...parentsOf(plain, options.words ?? [])].join(" ")} `)
    }
    const row = /^(\s*- )(.*?\S)\s{2,}(\S.*)$/.exec(line)
    if (row !== null) {
      const [, bullet, usage, description] = row
      lines.push(...wrapLine(bullet + usage!.replace(/^(\S+) \1 /, "$1 "), options.width, 2))
      lines.push(...wrapLine(" ".repeat(visible(bullet!) + 2) + description, options.width))
      continue
    }
    lines.push(...wrapLine(line, options.width, /^\s*- /.test(plain) ? 2 : 0))
  }
  return lines.join("\n")
}
