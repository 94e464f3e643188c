import { copyFile, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { type Notebook, renderNotebook } from '../../../source/tools/notebook.js'
import { notebookEditTool } from '../../../source/tools/notebook-edit.js'
import { createReadTool } from '../../../source/tools/read.js'
import { createTestEnv, run, runError, type TestEnv } from './helpers.js'

const FIXTURE = join(import.meta.dirname, 'fixtures', 'sales.ipynb')
// Read with the notebook renderer plugged into its seam, as the integrator wires it.
const readTool = createReadTool({ renderNotebook: (raw) => renderNotebook(raw) })

let env: TestEnv
let path: string
let original: string
beforeEach(async () => {
  env = await createTestEnv()
  path = join(env.workspace, 'sales.ipynb')
  await copyFile(FIXTURE, path)
  original = await readFile(path, 'utf8')
})
afterEach(async () => {
  await env.cleanup()
})

const load = async (): Promise<Notebook> => JSON.parse(await readFile(path, 'utf8')) as Notebook
const expected = (): Notebook => JSON.parse(original) as Notebook
const readNotebook = () => run(readTool, { file_path: path }, env.ctx)

describe('NotebookEdit', () => {
  it('refuses a notebook that was not read first', async () => {
    const error = await runError(
      notebookEditTool,
      { notebook_path: path, cell_id: 'plot0003', new_source: 'x' },
      env.ctx,
    )
    expect(error.message).toContain('has not been read')
    expect(await readFile(path, 'utf8')).toBe(original)
  })

  it('replaces a code cell by id: clears its outputs, keeps everything else byte for byte', async () => {
    await readNotebook()
    const result = await run(
      notebookEditTool,
      {
        notebook_path: path,
        cell_id: 'load0002',
        new_source: "import pandas as pd\ndf = pd.read_csv('sales.csv')\n",
      },
      env.ctx,
    )
    expect(result.forModel).toBe(
      'Replaced the source of cell 1 (id "load0002") (code) in sales.ipynb; its 2 outputs were cleared.',
    )
    const text = await readFile(path, 'utf8')
    // Same formatting as Jupyter's writer: 1-space indent, sorted keys, final newline.
    expect(text).toBe(`${JSON.stringify(JSON.parse(text), null, 1)}\n`)
    const want = expected()
    const cell = want.cells[1]!
    cell.source = ['import pandas as pd\n', "df = pd.read_csv('sales.csv')\n"]
    cell.outputs = []
    cell.execution_count = null
    expect(JSON.parse(text)).toEqual(want)
    // The unknown cell key, the notebook metadata and the other cells' outputs survived.
    expect(want.cells[1]!.x_custom_key).toEqual({ kept: true })
    expect(want.metadata.x_team_notes).toEqual({ owner: 'data-team', reviewed: false })
    expect(result.display).toMatchObject({ kind: 'diff', path: 'sales.ipynb', added: 1, removed: 2 })
  })

  it('replaces by number and can change the type', async () => {
    await readNotebook()
    await run(
      notebookEditTool,
      { notebook_path: path, cell_number: 3, new_source: 'Errors are expected here.', cell_type: 'markdown' },
      env.ctx,
    )
    const cell = (await load()).cells[3]!
    expect(cell).toEqual({
      cell_type: 'markdown',
      id: 'fail0004',
      metadata: {},
      source: ['Errors are expected here.'],
    })
  })

  it('inserts after the given cell, or at the start', async () => {
    await readNotebook()
    const result = await run(
      notebookEditTool,
      {
        notebook_path: path,
        cell_id: 'load0002',
        new_source: 'df.describe()',
        cell_type: 'code',
        edit_mode: 'insert',
      },
      env.ctx,
    )
    let nb = await load()
    expect(nb.cells.map((c) => c.id?.slice(0, 4))).toEqual([
      'intr',
      'load',
      expect.any(String),
      'plot',
      'fail',
    ])
    const inserted = nb.cells[2]!
    expect(inserted.id).toMatch(/^[0-9a-f]{8}$/)
    expect(inserted).toEqual({
      cell_type: 'code',
      execution_count: null,
      id: inserted.id,
      metadata: {},
      outputs: [],
      source: ['df.describe()'],
    })
    expect(result.forModel).toContain(
      `after cell 1 (id "load0002") of sales.ipynb; it is now cell 2 (id "${inserted.id}")`,
    )
    // The cell it was inserted after keeps its outputs.
    expect(nb.cells[1]!.outputs).toHaveLength(2)

    await run(
      notebookEditTool,
      { notebook_path: path, new_source: '# Intro\n', cell_type: 'markdown', edit_mode: 'insert' },
      env.ctx,
    )
    nb = await load()
    expect(nb.cells[0]).toMatchObject({ cell_type: 'markdown', source: ['# Intro\n'] })
    expect(nb.cells[0]).not.toHaveProperty('outputs')
    expect(nb.cells).toHaveLength(6)
  })

  it('deletes a cell by id and by number', async () => {
    await readNotebook()
    await run(
      notebookEditTool,
      { notebook_path: path, cell_id: 'plot0003', new_source: '', edit_mode: 'delete' },
      env.ctx,
    )
    await run(
      notebookEditTool,
      { notebook_path: path, cell_number: 0, new_source: '', edit_mode: 'delete' },
      env.ctx,
    )
    const want = expected()
    want.cells = [want.cells[1]!, want.cells[3]!]
    expect(await load()).toEqual(want)
  })

  it('lists the valid ids and numbers for a bad target', async () => {
    await readNotebook()
    const byId = await runError(
      notebookEditTool,
      { notebook_path: path, cell_id: 'nope', new_source: 'x' },
      env.ctx,
    )
    expect(byId.category).toBe('not_found')
    expect(byId.message).toBe(
      'sales.ipynb has no cell with id "nope". Valid ids: "intro001" (cell 0), "load0002" (cell 1), "plot0003" (cell 2), "fail0004" (cell 3).',
    )
    const byNumber = await runError(
      notebookEditTool,
      { notebook_path: path, cell_number: 4, new_source: 'x' },
      env.ctx,
    )
    expect(byNumber.message).toBe('sales.ipynb has no cell number 4 (4 cells). Valid numbers: 0–3.')
    const noTarget = await runError(notebookEditTool, { notebook_path: path, new_source: 'x' }, env.ctx)
    expect(noTarget.message).toContain('edit_mode "replace" needs cell_id or cell_number')
    const noType = await runError(
      notebookEditTool,
      { notebook_path: path, new_source: 'x', edit_mode: 'insert' },
      env.ctx,
    )
    expect(noType.message).toContain('needs cell_type')
    expect(await readFile(path, 'utf8')).toBe(original)
  })

  it('refuses a stale notebook', async () => {
    await readNotebook()
    await writeFile(path, original.replace('Sales analysis', 'Sales report'))
    const error = await runError(
      notebookEditTool,
      { notebook_path: path, cell_number: 0, new_source: 'x' },
      env.ctx,
    )
    expect(error.message).toContain('changed on disk since you last read it')
  })

  it('keeps 2-space indentation, a missing final newline and string sources; no ids before nbformat 4.5', async () => {
    const small = {
      cells: [{ cell_type: 'code', execution_count: 5, metadata: {}, outputs: [], source: 'x = 1' }],
      metadata: {},
      nbformat: 4,
      nbformat_minor: 4,
    }
    await writeFile(path, JSON.stringify(small, null, 2))
    await readNotebook()
    await run(
      notebookEditTool,
      {
        notebook_path: path,
        cell_number: 0,
        new_source: 'y = 2\n',
        cell_type: 'markdown',
        edit_mode: 'insert',
      },
      env.ctx,
    )
    const text = await readFile(path, 'utf8')
    const nb = JSON.parse(text) as Notebook
    expect(text).toBe(JSON.stringify(nb, null, 2))
    expect(nb.cells[1]).toEqual({ cell_type: 'markdown', metadata: {}, source: 'y = 2\n' })
  })

  it('refuses notebooks that are not nbformat 4', async () => {
    await writeFile(path, JSON.stringify({ nbformat: 3, nbformat_minor: 0, metadata: {}, cells: [] }))
    await readNotebook()
    const error = await runError(
      notebookEditTool,
      { notebook_path: path, cell_number: 0, new_source: 'x' },
      env.ctx,
    )
    expect(error.message).toBe('sales.ipynb is nbformat 3; only nbformat 4 notebooks can be edited.')
  })

  it('previews the change as a diff of the cell source', async () => {
    const preview = await notebookEditTool.preview(
      notebookEditTool.schema.parse({
        notebook_path: path,
        cell_id: 'plot0003',
        new_source: 'df.plot(kind="bar")',
      }),
      env.ctx,
    )
    expect(preview).toMatchObject({ kind: 'diff', path: 'sales.ipynb' })
    if (preview.kind !== 'diff') throw new Error('expected a diff')
    expect(preview.diff).toContain('@@ -1,1 +1,1 @@\n-df.plot()\n+df.plot(kind="bar")\n')
    expect(
      notebookEditTool.permissionTarget(
        notebookEditTool.schema.parse({ notebook_path: path, new_source: '' }),
        env.ctx,
      ),
    ).toEqual({
      kind: 'path',
      path,
      access: 'write',
    })
  })
})

describe('renderNotebook', () => {
  it('shows cells with ids, types, sources and outputs', () => {
    const text = renderNotebook(original)
    expect(text).toContain('Jupyter notebook (nbformat 4.5, kernel Python 3, python), 4 cells.')
    expect(text).toContain(
      '<cell number="0" id="intro001" type="markdown">\n# Sales analysis\n\nLoads the data and plots it.\n</cell>',
    )
    expect(text).toContain(
      '<cell number="1" id="load0002" type="code" execution_count="1">\nimport pandas as pd\n',
    )
    expect(text).toContain('<outputs of cell 1>\n[stdout]\nloading data.csv\nrows: 3\n42\n</outputs>')
    expect(text).toContain('<Figure size 640x480 with 1 Axes>\n[image/png output, 1024 bytes]')
    expect(text).toContain('[error] ValueError: bad value\n')
    // ANSI colours are stripped from tracebacks.
    expect(text).not.toContain('\u001b')
  })

  it('limits the cells shown with offset and limit', () => {
    const text = renderNotebook(original, { offset: 1, limit: 2 })
    expect(text).toContain('showing cells 1–2')
    expect(text).not.toContain('number="0"')
    expect(text).toContain('number="2"')
    expect(text).not.toContain('number="3"')
  })

  it('bounds long outputs and collapses progress-bar redraws', () => {
    const nb = {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [
        {
          cell_type: 'code',
          id: 'a',
          metadata: {},
          execution_count: 1,
          source: 'loop()',
          outputs: [
            { output_type: 'stream', name: 'stderr', text: '10%\r50%\r100%\n' },
            { output_type: 'stream', name: 'stdout', text: 'x'.repeat(50_000) },
          ],
        },
      ],
    }
    const text = renderNotebook(JSON.stringify(nb))
    expect(text).toContain('[stderr]\n100%\n')
    expect(text).toMatch(/\[… \d+ characters of output not shown …\]/)
    expect(text.length).toBeLessThan(6_000)
  })

  it('falls back to the raw text for JSON that is not a notebook', () => {
    expect(renderNotebook('{oops')).toMatch(
      /^\[agent-tui\] This file is not valid JSON .*raw text follows\.\n\{oops$/s,
    )
  })

  it('is what Read returns for .ipynb files, and Read counts as reading for NotebookEdit', async () => {
    const result = await readNotebook()
    expect(result.forModel).toContain('<cell number="2" id="plot0003" type="code" execution_count="2">')
    await run(notebookEditTool, { notebook_path: path, cell_number: 2, new_source: 'df.plot()\n' }, env.ctx)
  })
})
