import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { SkillMarkdown } from "./skill-markdown";

/** The HTML SkillMarkdown renders for `source`, with `references/guide.md` as the skill's one resource. */
function render(source: string): string {
  return renderToStaticMarkup(createElement(SkillMarkdown, { source, resources: ["references/guide.md"], onOpenResource: () => {} }));
}

describe("SkillMarkdown (a native skill's instructions)", () => {
  it("renders GitHub-flavoured markdown: headings, lists, code, tables", () => {
    const html = render("# Title\n\n- one\n- `two`\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~\n");
    expect(html).toContain(">Title</h1>");
    expect(html).toMatch(/<li[^>]*>one<\/li>/);
    expect(html).toMatch(/<code[^>]*>two<\/code>/);
    expect(html).toMatch(/<td[^>]*>1<\/td>/);
    expect(html).toMatch(/<del[^>]*>old<\/del>/);
  });

  it("never renders raw HTML from the skill (the attack: script tags and event handlers)", () => {
    const html = render('Hi <script>alert(1)</script> <img src="x" onerror="alert(2)"> <b onclick="x()">bold</b>\n\n<div>block</div>\n');
    expect(html).not.toContain("<script");
    expect(html).not.toContain("onerror");
    expect(html).not.toContain("onclick");
    expect(html).not.toContain("<img");
    expect(html).not.toContain("<div>block</div>");
  });

  it("opens only http(s) links, in a new tab with rel=noreferrer noopener; javascript: URLs are dropped", () => {
    const html = render("[web](https://example.com/a) [bad](javascript:alert(1)) [mail](mailto:a@b.c) [top](#steps)");
    expect(html).toContain('<a href="https://example.com/a" target="_blank" rel="noreferrer noopener"');
    expect(html).not.toContain("javascript:");
    expect(html).not.toContain('href="mailto:');
    expect(html).toContain('title="Link to mailto:a@b.c (not opened from the console)"');
    expect(html).toMatch(/<a href="#steps"[^>]*>top<\/a>/);
    expect(html.match(/target="_blank"/g)).toHaveLength(1);
  });

  it("turns a relative link to one of the skill's resources into a button of the resources browser", () => {
    const html = render("Read [the guide](./references/guide.md) and [elsewhere](../other/SKILL.md).");
    expect(html).toMatch(/<button type="button" title="Open references\/guide.md in the resources browser"[^>]*>the guide<\/button>/);
    expect(html).not.toContain('href="./references/guide.md"');
    expect(html).not.toContain('href="../other/SKILL.md"');
  });

  it("makes inline code that is exactly a resource path open it; other code stays code", () => {
    const html = render("Read `references/guide.md`, not `references/other.md`.\n\n```\nreferences/guide.md\n```\n");
    expect(html.match(/<button type="button" title="Open references\/guide.md in the resources browser"/g)).toHaveLength(1);
    expect(html).toMatch(/<code class="rounded[^"]*">references\/other.md<\/code>/);
  });

  it("never fetches images: shows their alt text instead", () => {
    const html = render("![architecture diagram](https://tracker.example/pixel.png)");
    expect(html).not.toContain("<img");
    expect(html).toContain("architecture diagram");
    expect(html).toContain('title="Image https://tracker.example/pixel.png (not loaded)"');
  });
});
