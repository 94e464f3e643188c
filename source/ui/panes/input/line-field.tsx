import { Text } from '../../components/text.js'
import type { KeyEvent } from '../../keys/dispatcher.js'
import { type EditorState, editorReducer } from './editor-state.js'

/**
 * Editing keys of a one-line field (consent note, "Other" answer, plan feedback). Returns the new state,
 * or null when the key is not a text edit so the caller can treat it as a command.
 */
export function editLineField(state: EditorState, ev: KeyEvent): EditorState | null {
  if (ev.has('input.backspace')) return editorReducer(state, { type: 'backspace' })
  if (ev.has('input.delete')) return editorReducer(state, { type: 'delete' })
  if (ev.has('input.left')) return editorReducer(state, { type: 'left' })
  if (ev.has('input.right')) return editorReducer(state, { type: 'right' })
  if (ev.has('input.deleteWord')) return editorReducer(state, { type: 'deleteWord' })
  if (ev.has('input.lineStart')) return editorReducer(state, { type: 'lineStart' })
  if (ev.has('input.lineEnd')) return editorReducer(state, { type: 'lineEnd' })
  if (ev.has('input.killLineLeft')) return editorReducer(state, { type: 'killLineLeft' })
  if (ev.has('input.killLineRight')) return editorReducer(state, { type: 'killLineRight' })
  const k = ev.key
  if (!ev.input || k.ctrl || k.meta || k.return || k.escape || k.tab || k.upArrow || k.downArrow) return null
  // One line only: newlines in typed or pasted text become spaces.
  return editorReducer(state, { type: 'insert', text: ev.input.replace(/[\r\n]+/g, ' ') })
}

/** A one-line field with a block caret; the placeholder shows while it is empty. */
export function LineField({
  state,
  placeholder,
  focused,
}: {
  state: EditorState
  placeholder?: string
  focused: boolean
}) {
  if (!state.text && placeholder) {
    return (
      <Text>
        {focused ? <Text inverse> </Text> : null}
        <Text dimColor>{placeholder}</Text>
      </Text>
    )
  }
  if (!focused) return <Text>{state.text}</Text>
  return (
    <Text>
      {state.text.slice(0, state.cursor)}
      <Text inverse>{state.text[state.cursor] ?? ' '}</Text>
      {state.text.slice(state.cursor + 1)}
    </Text>
  )
}
