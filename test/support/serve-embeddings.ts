/**
 * `node test/support/serve-embeddings.ts [--dimensions N]`: the scripted embeddings server on 127.0.0.1
 * for trying CodeSearch by hand (and the bench); prints its base URL, serves model `embed-test`.
 */
import { startEmbeddingsServer } from './embeddings-server.ts'

const at = process.argv.indexOf('--dimensions')
const server = await startEmbeddingsServer(at > 0 ? { dimensions: Number(process.argv[at + 1]) } : {})
process.stdout.write(`${server.baseUrl}\n`)
process.on('SIGTERM', () => void server.close().then(() => process.exit(0)))
