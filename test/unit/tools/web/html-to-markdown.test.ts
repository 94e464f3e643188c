import { describe, expect, it } from 'vitest'
import { htmlToMarkdown } from '../../../../source/tools/web/html-to-markdown.js'

const page = (body: string, head = '') =>
  `<!doctype html><html><head><title>The  Title</title>${head}</head><body>${body}</body></html>`

describe('htmlToMarkdown', () => {
  it('converts headings, emphasis, links, lists and code', () => {
    const { markdown, title } = htmlToMarkdown(
      page(`<h1>Guide</h1><h2>Install</h2><p>Run <b>this</b> and <strong>that</strong>, <em>carefully</em>;
        see <a href="/docs/setup?x=1">the setup page</a>.</p>
        <ul><li>one</li><li>two <code>--flag</code></li></ul><ol start="3"><li>third</li><li>fourth</li></ol>
        <pre><code class="language-ts">const a: number = 1
console.log(a)</code></pre><pre>plain
  block</pre>`),
      'https://example.com/guide/index.html',
    )
    expect(title).toBe('The Title')
    expect(markdown).toContain('# Guide\n\n## Install')
    expect(markdown).toContain('Run **this** and **that**, _carefully_;')
    expect(markdown).toContain('[the setup page](https://example.com/docs/setup?x=1)')
    expect(markdown).toContain('- one\n- two `--flag`')
    expect(markdown).toContain('3. third\n4. fourth')
    expect(markdown).toContain('```ts\nconst a: number = 1\nconsole.log(a)\n```')
    expect(markdown).toContain('```\nplain\n  block\n```')
  })

  it('drops scripts, styles, forms and page chrome but keeps an article header', () => {
    const { markdown } = htmlToMarkdown(
      page(
        `<header><nav><a href="/">Home</a><a href="/blog">Blog</a></nav></header>
        <aside>Sidebar links</aside>
        <main><article><header><h1>Post title</h1></header><p>${'Body text. '.repeat(30)}</p>
        <script>document.write("SCRIPT TEXT")</script><style>p{color:red}</style>
        <form><input value="FORM VALUE"><button>Send</button></form><noscript>NOSCRIPT TEXT</noscript></article></main>
        <footer>Copyright FOOTER</footer>`,
        '<style>.x{}</style><script>var HEAD_SCRIPT = 1</script>',
      ),
      'https://example.com/',
    )
    expect(markdown).toMatch(/^# Post title\n\nBody text\./)
    for (const gone of [
      'SCRIPT TEXT',
      'HEAD_SCRIPT',
      'color:red',
      'FORM VALUE',
      'Send',
      'NOSCRIPT',
      'Sidebar',
      'FOOTER',
      'Home',
    ])
      expect(markdown).not.toContain(gone)
  })

  it('uses the whole body when there is no main content element', () => {
    const { markdown } = htmlToMarkdown(
      page('<div><p>First paragraph</p></div><div><p>Second paragraph</p></div>'),
      'https://x.test/',
    )
    expect(markdown).toBe('First paragraph\n\nSecond paragraph')
  })

  it('renders tables as Markdown tables with escaped pipes', () => {
    const { markdown } = htmlToMarkdown(
      page(
        '<table><thead><tr><th>Name</th><th>Value</th></tr></thead><tbody><tr><td>a|b</td><td>1</td></tr><tr><td>c</td><td><b>2</b></td></tr></tbody></table>',
      ),
      'https://x.test/',
    )
    expect(markdown).toBe('| Name | Value |\n| --- | --- |\n| a\\|b | 1 |\n| c | **2** |')
  })

  it('drops empty, javascript: and data: links and images without alt text', () => {
    const { markdown } = htmlToMarkdown(
      page(`<p><a href="/icon"><span></span></a><a href="javascript:alert(1)">run</a>
        <img src="/logo.png"><img src="data:image/png;base64,AAAA" alt="inline"><img src="pic.png" alt="A chart"></p>`),
      'https://x.test/a/',
    )
    expect(markdown).toBe('run ![A chart](https://x.test/a/pic.png)')
  })
})
