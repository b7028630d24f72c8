/**
 * The copy buttons of the partner console (docs/consoles.md#keys), bundled by ../Island.ts: a
 * `button[data-copy]` copies the value of the element whose id it names, and says so in its own
 * live region. Without JavaScript the buttons stay hidden and the value can be selected by hand.
 */
document.querySelectorAll<HTMLButtonElement>("button[data-copy]").forEach((button) => {
  const source = document.getElementById(button.dataset["copy"] ?? "")
  const status = document.getElementById(`${button.dataset["copy"] ?? ""}-copied`)
  if (source === null) return
  button.hidden = false
  button.addEventListener("click", () => {
    const value = source instanceof HTMLInputElement ? source.value : (source.textContent ?? "")
    navigator.clipboard.writeText(value).then(
      () => {
        if (status !== null) status.textContent = "Copied."
      },
      () => {
        if (source instanceof HTMLInputElement) source.select()
        if (status !== null) status.textContent = "Select the text and copy it."
      }
    )
  })
})
