using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using ArrowLz4Fast.Tests.Support;
using Xunit;

namespace ArrowLz4Fast.Tests
{
    /// <summary>
    /// README.md, docs/*.md and benchmarks/README.md: every relative markdown link reaches a file (and a heading, when
    /// it names one in a markdown file), and the pages stay short enough to read: the README at most 220 lines, a
    /// docs page at most 250 (the lab notebook, benchmarks/README.md, has no limit).
    /// </summary>
    public class DocLinkTests
    {
        private const int ReadmeMaxLines = 220;
        private const int DocsPageMaxLines = 250;

        [Fact]
        public void Every_relative_link_reaches_a_file_and_heading()
        {
            string root = CorpusLocator.RepositoryRoot;
            List<string> broken = Pages(root).SelectMany(page => BrokenLinks(root, page)).ToList();
            Assert.True(broken.Count == 0, "broken links:\n" + string.Join("\n", broken));
        }

        [Fact]
        public void Readme_and_docs_pages_stay_short()
        {
            string root = CorpusLocator.RepositoryRoot;
            var tooLong = new List<string>();
            int readme = LineCount(Path.Combine(root, "README.md"));
            if (readme > ReadmeMaxLines)
                tooLong.Add($"README.md: {readme} lines, at most {ReadmeMaxLines}");
            foreach (string page in Directory.GetFiles(Path.Combine(root, "docs"), "*.md"))
            {
                int lines = LineCount(page);
                if (lines > DocsPageMaxLines)
                    tooLong.Add($"{Path.GetRelativePath(root, page)}: {lines} lines, at most {DocsPageMaxLines}");
            }
            Assert.True(tooLong.Count == 0, "pages too long (move dated runs to benchmarks/README.md):\n" + string.Join("\n", tooLong));
        }

        /// <summary>The broken relative links of one page, each as "page: link".</summary>
        internal static IEnumerable<string> BrokenLinks(string root, string page)
        {
            if (!File.Exists(page))
            {
                yield return $"{Path.GetRelativePath(root, page)}: no such page";
                yield break;
            }
            string text = WithoutCode(File.ReadAllText(page).Replace("\r\n", "\n"));
            foreach (Match link in Regex.Matches(text, @"\]\(([^)\s]+)\)"))
            {
                string target = link.Groups[1].Value;
                if (Regex.IsMatch(target, "^[a-zA-Z][a-zA-Z0-9+.-]*:"))
                    continue;   // https:, mailto: and the like: not this repository's files
                int hash = target.IndexOf('#');
                string path = hash < 0 ? target : target.Substring(0, hash);
                string anchor = hash < 0 ? "" : target.Substring(hash + 1);
                string full = path.Length == 0 ? page : Path.GetFullPath(Path.Combine(Path.GetDirectoryName(page)!, Uri.UnescapeDataString(path)));
                if (!File.Exists(full) && !Directory.Exists(full))
                    yield return $"{Path.GetRelativePath(root, page)}: {target} (no such file)";
                else if (anchor.Length > 0 && full.EndsWith(".md", StringComparison.OrdinalIgnoreCase) && File.Exists(full)
                         && !Anchors(File.ReadAllText(full)).Contains(anchor))
                    yield return $"{Path.GetRelativePath(root, page)}: {target} (no such heading)";
            }
        }

        /// <summary>GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, repeats numbered.</summary>
        internal static HashSet<string> Anchors(string markdown)
        {
            var anchors = new HashSet<string>(StringComparer.Ordinal);
            var seen = new Dictionary<string, int>(StringComparer.Ordinal);
            string text = Regex.Replace(markdown.Replace("\r\n", "\n"), "```.*?```", "", RegexOptions.Singleline);
            foreach (Match heading in Regex.Matches(text, @"^#{1,6} +(.*?)\s*$", RegexOptions.Multiline))
            {
                string slug = Regex.Replace(heading.Groups[1].Value.Trim().ToLowerInvariant(), @"[^\w\- ]", "").Replace(' ', '-');
                seen.TryGetValue(slug, out int n);
                seen[slug] = n + 1;
                anchors.Add(n == 0 ? slug : $"{slug}-{n}");
            }
            return anchors;
        }

        private static string WithoutCode(string markdown) =>
            Regex.Replace(Regex.Replace(markdown, "```.*?```", "", RegexOptions.Singleline), "`[^`\n]*`", "");

        private static IEnumerable<string> Pages(string root)
        {
            yield return Path.Combine(root, "README.md");
            foreach (string page in Directory.GetFiles(Path.Combine(root, "docs"), "*.md").OrderBy(p => p, StringComparer.Ordinal))
                yield return page;
            yield return Path.Combine(root, "benchmarks", "README.md");   // the lab notebook: must exist
        }

        private static int LineCount(string path) => File.ReadAllText(path).Replace("\r\n", "\n").TrimEnd('\n').Split('\n').Length;
    }
}
