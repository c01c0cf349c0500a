import { Marked, type Tokens } from 'marked';
import { Html } from '../lib/html.js';

/** Markdown of our own documents (trusted text) as HTML; headings moved down by `shift` levels. */
export function renderMarkdown(text: string, shift = 0): Html {
  const marked = new Marked({
    gfm: true,
    async: false,
    walkTokens(token) {
      if (token.type === 'heading') {
        const heading = token as Tokens.Heading;
        heading.depth = Math.min(6, heading.depth + shift);
      }
    },
  });
  return new Html(marked.parse(text, { async: false }));
}
