/**
 * What a paste or image chip looks like in the prompt's text (`chips.ts` makes them): the one pattern the
 * editor (Backspace takes a chip whole) and vim mode (a chip is one unit) recognise chips by.
 */
export const CHIP_PATTERN = String.raw`\[(?:Pasted text #\d+ \+\d+ lines|Image #\d+)\]`
