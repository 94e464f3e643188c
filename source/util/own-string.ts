/**
 * A copy of `text` that holds nothing else alive. V8 keeps a substring of 13 characters or more (from
 * `slice`, `trim`, `split`, a regular expression's match) as a view into the string it was cut from, so a
 * short value kept from a file (a command's `argument-hint`) would keep the whole file's text in memory:
 * measured with a 300-item collection, each kept hint held its 16-32 KB file. Pure.
 */
export function ownString(text: string): string {
  return text.length < 13 ? text : (JSON.parse(JSON.stringify(text)) as string)
}
