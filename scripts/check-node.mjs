// npm scripts must run on the project's pinned Node (devDependency "node" puts it first on PATH).
// When that binary is missing (e.g. `npm install --ignore-scripts`), scripts would silently run on an
// older system Node; fail loudly instead.
const major = Number(process.versions.node.split('.')[0])
if (major < 22) {
  console.error(
    `agent-tui needs Node >= 22, but this script runs on Node ${process.versions.node}.\n` +
      'The project pins its own Node as a devDependency; run `npm install` (without --ignore-scripts) to get it.',
  )
  process.exit(1)
}
