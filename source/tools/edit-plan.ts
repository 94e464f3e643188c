import { findClosestRegion } from './edit-closest.js'
import { type MatcherName, planEdit, type Replacement } from './edit-matchers.js'
import { cutLine, numberLines } from './numbered-lines.js'
import { ToolError } from './types.js'

/**
 * One string replacement planned on a file's text, as Edit makes it and MultiEdit makes each of its
 * edits: exact and unique (or every occurrence), else one region a tolerant matcher finds. Pure: the
 * callers read and write the file.
 */

export interface EditStep {
  old_string: string
  new_string: string
  replace_all?: boolean | undefined
}

export interface PlannedStep {
  after: string
  matcher: MatcherName
  replacements: Replacement[]
}

const SNIPPET_MAX_LINES = 60

/** What the result tells the model when a tolerant matcher applied the edit. */
export const MATCHER_NOTES: Record<MatcherName, string> = {
  exact: '',
  'trailing-whitespace': 'old_string did not match exactly; it matched after ignoring trailing whitespace.',
  'indentation-relative':
    'old_string did not match exactly; it matched with different indentation, and new_string was re-indented to fit.',
  'line-trimmed': 'old_string did not match exactly; it matched after trimming whitespace on every line.',
  'unicode-punctuation':
    'old_string did not match exactly; it matched after treating typographic dashes, quotes and spaces as their ASCII forms.',
  'escaped-newline':
    'old_string did not match exactly; it matched after unescaping \\n, \\t and quotes in both strings.',
}

/**
 * Plans `step` on `text` (LF text; `crlf`: the file is CRLF, so CRLF in the strings is read as LF).
 * Throws the ToolError Edit reports when the step cannot be applied or changes nothing.
 */
export function planStep(text: string, step: EditStep, shown: string, crlf: boolean): PlannedStep {
  if (step.old_string === '') {
    if (text !== '') {
      throw new ToolError('validation', `old_string is empty, but ${shown} is not empty.`, {
        hint: 'Put the text to replace in old_string, or use Write to replace the whole file.',
      })
    }
    return {
      after: step.new_string,
      matcher: 'exact',
      replacements: [{ start: 0, end: 0, text: step.new_string }],
    }
  }
  const oldString = crlf ? step.old_string.replace(/\r\n/g, '\n') : step.old_string
  const newString = crlf ? step.new_string.replace(/\r\n/g, '\n') : step.new_string
  const plan = planEdit(text, oldString, newString, step.replace_all ?? false)
  if (!plan.ok && plan.reason === 'ambiguous') {
    if (plan.matcher === 'exact') {
      throw new ToolError(
        'validation',
        `old_string occurs ${plan.count} times in ${shown}, so it is not unique.`,
        {
          hint: 'Add surrounding lines to old_string so it matches one place, or set replace_all: true to change all of them.',
        },
      )
    }
    throw new ToolError(
      'validation',
      `old_string does not match ${shown} exactly, and the ${plan.matcher} matcher found ${plan.count} candidate regions, so nothing was changed.`,
      {
        hint: 'Read the file again and copy old_string exactly, with enough surrounding lines to be unique.',
      },
    )
  }
  if (!plan.ok) throw notFound(shown, text, oldString)
  if (plan.content === text) {
    throw new ToolError('validation', `The edit would not change ${shown}.`, {
      hint: 'Check that new_string contains the change you intend.',
    })
  }
  return { after: plan.content, matcher: plan.matcher, replacements: plan.replacements }
}

function notFound(shown: string, text: string, oldString: string): ToolError {
  const closest = findClosestRegion(text, oldString)
  let message = `old_string was not found in ${shown}.`
  if (closest && closest.similarity >= 0.3) {
    const shownLines = closest.lines.slice(0, SNIPPET_MAX_LINES).map((l) => cutLine(l, l.length, 500))
    const end = closest.startLine + closest.lines.length - 1
    message += ` The most similar region (lines ${closest.startLine}–${end}, ${Math.round(closest.similarity * 100)}% similar) is:\n${numberLines(shownLines, closest.startLine)}`
  } else {
    message += ' No similar region was found.'
  }
  return new ToolError('not_found', message, {
    hint: 'Read the file again and copy old_string exactly, including indentation and whitespace (without the line-number prefix).',
  })
}

/** Numbered lines of `after` around the first replacement, ±`context` lines. */
export function snippet(after: string, replacements: readonly Replacement[], context = 4): string {
  const lines = after.split('\n')
  const first = replacements[0]
  const startOffset = first?.start ?? 0
  const firstLine = after.slice(0, startOffset).split('\n').length - 1
  const changedLines = first ? first.text.replace(/\n$/, '').split('\n').length : lines.length
  const from = Math.max(0, firstLine - context)
  const to = Math.min(lines.length, firstLine + changedLines + context)
  const picked = lines.slice(from, Math.min(to, from + SNIPPET_MAX_LINES)).map((l) => cutLine(l))
  const more = to - from > SNIPPET_MAX_LINES ? `\n… ${to - from - SNIPPET_MAX_LINES} more changed lines` : ''
  return numberLines(picked, from + 1) + more
}
