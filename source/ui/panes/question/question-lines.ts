import wrapAnsi from 'wrap-ansi'
import type { Question } from '../../../store/domain.js'

export interface QuestionLayout {
  /** The question, wrapped at word boundaries. */
  question: string[]
  /** Each option's description, wrapped; empty lists when there is no room for them. */
  descriptions: string[][]
}

const wrap = (text: string, width: number) =>
  text ? wrapAnsi(text, Math.max(1, width), { hard: true }).split('\n') : []

/** Columns a description is indented by ("     " under "❯ 1. "). */
export const DESCRIPTION_INDENT = 5

/**
 * How a question fits `width` × `maxHeight` (border included): the question is wrapped whole, then the
 * options' descriptions get what room is left — wrapped in full, else one line each, else none. Nothing
 * is cut mid-word; a line that still does not fit is what the terminal's width forces.
 */
export function layoutQuestion(question: Question, width: number, maxHeight: number): QuestionLayout {
  const inner = Math.max(10, width - 2)
  // border (2) + tabs + one row per option + "Other" + hint
  const fixed = 2 + 1 + question.options.length + 1 + 1
  const text = wrap(question.question, inner)
  const questionRows = Math.max(1, Math.min(text.length, maxHeight - fixed))
  const shown =
    questionRows < text.length
      ? [...text.slice(0, questionRows - 1), `${text.slice(questionRows - 1).join(' ')}`]
      : text
  const room = maxHeight - fixed - shown.length
  const full = question.options.map((o) => wrap(o.description, inner - DESCRIPTION_INDENT))
  const fullRows = full.reduce((n, lines) => n + lines.length, 0)
  if (fullRows <= room) return { question: shown, descriptions: full }
  if (question.options.length <= room)
    return { question: shown, descriptions: full.map((lines) => lines.slice(0, 1)) }
  return { question: shown, descriptions: question.options.map(() => []) }
}
