import { describe, expect, it } from "@effect/vitest"
import fc from "fast-check"
import { helpText, stripAnsi } from "../../src/cli/HelpText.js"

const plain = { width: 120, colour: false, program: "marketplace" }

describe("the CLI's help text", () => {
  it("a padded command-table row becomes the usage, then its description indented below", () => {
    const row = `  - user create --email text${" ".repeat(200)}Create a user who can sign in`
    expect(helpText(row, plain)).toBe("  - user create --email text\n      Create a user who can sign in")
  })

  it("a row three commands deep names its first parent once (@effect/cli prints it twice)", () => {
    const row = `  - ledger ledger export statement <statement_id>${" ".repeat(40)}One statement's lines as CSV`
    expect(helpText(row, plain)).toBe("  - ledger export statement <statement_id>\n      One statement's lines as CSV")
    expect(helpText("  - ledger export    CSV exports", plain)).toBe("  - ledger export\n      CSV exports")
  })

  it("a subcommand's USAGE names the program; colours go unless asked for", () => {
    expect(helpText("\x1b[1m$ partner create\x1b[0m", plain)).toBe("$ marketplace partner create")
    expect(helpText("$ marketplace order", plain)).toBe("$ marketplace order")
  })

  it("a nested subcommand's USAGE names its parent commands, as typed before the options", () => {
    const words = ["user", "create", "--help"]
    expect(helpText("$ create --email text", { ...plain, words })).toBe("$ marketplace user create --email text")
    // A positional argument after the command is not a parent.
    expect(helpText("$ revoke <KEY>", { ...plain, words: ["apikey", "revoke", "k_1", "--help"] }))
      .toBe("$ marketplace apikey revoke <KEY>")
    expect(helpText("$ user", { ...plain, words: ["user", "--help"] })).toBe("$ marketplace user")
    expect(helpText("\x1b[1mUSAGE\x1b[0m", { ...plain, colour: true })).toBe("\x1b[1mUSAGE\x1b[0m")
  })

  const word = fc.stringMatching(/^[a-z\-[\]|.]{1,30}$/)
  const line = fc.tuple(fc.nat({ max: 8 }), fc.array(word, { minLength: 1, maxLength: 60 }), fc.nat({ max: 150 }))
    .map(([indent, words, pad]) => " ".repeat(indent) + words.join(" ") + " ".repeat(pad))

  it("every line fits the width, indentation kept, words and their order unchanged", () =>
    fc.assert(fc.property(fc.array(line, { maxLength: 20 }), fc.integer({ min: 40, max: 120 }), (lines, width) => {
      const out = helpText(lines.join("\n"), { ...plain, width })
      for (const l of out.split("\n")) {
        expect(l.length <= width || !l.trim().includes(" ")).toBe(true)
        expect(l).toBe(l.trimEnd())
      }
      const words = (text: string) => stripAnsi(text).split(/\s+/).filter((w) => w !== "" && w !== "-")
      expect(words(out)).toEqual(words(lines.join("\n")))
    })))
})
