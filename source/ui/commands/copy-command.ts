/**
 * `/copy [N|list]`: the last answer, or its Nth code block, to the clipboard (`ui/clipboard/`). The notice
 * says which ways it went, so a terminal that ignored OSC 52 is no surprise.
 */
import { type CodeBlock, codeBlocks, lastAnswerText } from '../clipboard/answer-text.js'
import type { CopyOutcome } from '../clipboard/clipboard.js'
import type { CommandContext } from './command-context.js'
import type { SlashCommand } from './command-table.js'

export const COPY_COMMAND: SlashCommand = {
  name: 'copy',
  argumentHint: '[N|list]',
  description: 'Copy the last answer (or its code block N) to the clipboard',
  unavailable: (state) => (lastAnswerText(state) === undefined ? 'no answer to copy yet' : null),
  completeArguments(partial, state) {
    const blocks = codeBlocks(lastAnswerText(state) ?? '')
    return [
      ...blocks.map((b, i) => ({ value: String(i + 1), detail: blockLabel(b) })),
      ...(blocks.length > 0 ? [{ value: 'list', detail: 'show the code blocks' }] : []),
    ].filter((c) => c.value.startsWith(partial))
  },
  run: copyCommand,
}

export async function copyCommand(ctx: CommandContext, args: string): Promise<void> {
  const answer = lastAnswerText(ctx.getState())
  if (answer === undefined) {
    ctx.flash('Nothing to copy: no answer yet', 'warn')
    return
  }
  const blocks = codeBlocks(answer)
  if (args === 'list') {
    if (blocks.length === 0) ctx.flash('The last answer has no code blocks', 'warn')
    else ctx.showInfo('Code blocks of the last answer — /copy N', blocks.map(blockLine))
    return
  }
  let text = answer
  let what = `the last answer (${count(answer.length, 'character')})`
  if (args !== '') {
    const n = /^\d+$/.test(args) ? Number(args) : Number.NaN
    const block = blocks[n - 1]
    if (!block) {
      const have = blocks.length === 0 ? 'it has none' : `it has ${blocks.length}: /copy 1…${blocks.length}`
      ctx.flash(`Usage: /copy [N|list] — no code block "${args}" in the last answer (${have})`, 'warn')
      return
    }
    text = block.code
    what = `code block ${n} (${blockLabel(block)})`
  }
  if (!ctx.copyText) {
    ctx.flash('Copying needs a terminal', 'warn')
    return
  }
  const outcome = await ctx.copyText(text)
  const { text: notice, level } = copyNotice(what, outcome, args === '' ? blocks.length : 0)
  ctx.flash(notice, level)
}

/** The notice after a copy: which ways it went, what failed. Pure. */
export function copyNotice(
  what: string,
  { via, failed }: CopyOutcome,
  blockCount: number,
): { text: string; level: 'info' | 'warn' | 'error' } {
  const problems = failed.length > 0 ? ` (${failed.join('; ')})` : ''
  if (via.length === 0) {
    const why =
      failed.length > 0
        ? failed.join('; ')
        : 'the terminal takes no OSC 52 and no clipboard program was found'
    return {
      text: `Nothing copied: ${why} — install wl-copy, xclip, xsel (Linux) or use a terminal with OSC 52`,
      level: 'error',
    }
  }
  const more = blockCount > 0 ? ` · ${count(blockCount, 'code block')}: /copy N, /copy list` : ''
  return {
    text: `Copied ${what} via ${via.join(' and ')}${problems}${more}`,
    level: failed.length > 0 ? 'warn' : 'info',
  }
}

function blockLabel(block: CodeBlock): string {
  const lines = block.code === '' ? 0 : block.code.split('\n').length
  return `${block.lang || 'text'}, ${count(lines, 'line')}`
}

function blockLine(block: CodeBlock, index: number): string {
  const first = block.code.split('\n').find((l) => l.trim() !== '') ?? ''
  return `${String(index + 1).padStart(2)}  ${blockLabel(block).padEnd(18)}  ${first.trim().slice(0, 60)}`
}

function count(n: number, noun: string): string {
  return `${n.toLocaleString('en-US')} ${noun}${n === 1 ? '' : 's'}`
}
