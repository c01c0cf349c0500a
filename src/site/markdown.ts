import { Marked, type Tokens } from 'marked';
import { Html } from '../lib/html.js';

/**
 * Markdown of our own documents (trusted text) as HTML; headings moved down by `shift` levels,
 * and each link's or image's address passed through `href` when given.
 */
export function renderMarkdown(text: string, shift = 0, href?: (address: string) => string): Html {
  const marked = new Marked({
    gfm: true,
    async: false,
    walkTokens(token) {
      if (token.type === 'heading') {
        const heading = token as Tokens.Heading;
        heading.depth = Math.min(6, heading.depth + shift);
      }
      if (href !== undefined && (token.type === 'link' || token.type === 'image')) {
        const link = token as Tokens.Link | Tokens.Image;
        link.href = href(link.href);
      }
    },
  });
  return new Html(marked.parse(text, { async: false }));
}
