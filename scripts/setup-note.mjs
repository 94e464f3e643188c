// Run by `npm install` in this folder (the "prepare" script; never when agent-tui is installed as a
// dependency). npm may itself run on an older Node than agent-tui needs: say that this is fine and which Node
// the project's scripts use. The project's .npmrc keeps npm's EBADENGINE warnings about it out of the way.
import { pathToFileURL } from 'node:url'

/** The note for npm's Node (from npm_config_user_agent) and the Node this script runs on; null: no note. */
export function setupNote(userAgent, scriptNode) {
  const npmNode = /\bnode\/v(\d+)\.(\d+)\.(\d+)/.exec(userAgent ?? '')
  if (!npmNode || Number(npmNode[1]) >= 22) return null
  const npmVersion = npmNode[0].slice('node/v'.length)
  if (Number(scriptNode.split('.')[0].replace(/^v/, '')) < 22) {
    return (
      `agent-tui: npm runs on Node ${npmVersion} and the Node 24 this project pins is missing ` +
      '(installed with --ignore-scripts?); run `npm install` again without it.'
    )
  }
  return (
    `agent-tui: npm runs on Node ${npmVersion}, but agent-tui brings the Node it needs (>= 22):\n` +
    `           npm start, npm test and npx agent-tui use the pinned Node ${scriptNode.replace(/^v/, '')} in node_modules.`
  )
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const note = setupNote(process.env.npm_config_user_agent, process.version)
  if (note) process.stdout.write(`${note}\n`)
}
