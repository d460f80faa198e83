package dev.zaelimiter.docs;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Keeps the user guide honest: every {@code ```java} block in {@code docs/*.md} must be preceded by
 * {@code <!-- example: NAME -->} and must equal the region between {@code // tag::NAME[]} and {@code // end::NAME[]}
 * of one of the example tests of this package, {@link DocsExamplesTest} and every other {@code *DocsExamplesTest}
 * (compared after removing common indentation and trailing whitespace). Since those tests run the regions, no
 * example in the docs can stop compiling or working without a test failing.
 */
class DocsSnippetsTest {

    private static final Pattern MARKER = Pattern.compile("^\\s*<!--\\s*example:\\s*([A-Za-z0-9_.-]+)\\s*-->\\s*$");
    private static final Pattern FENCE = Pattern.compile("^\\s*(```+|~~~+)\\s*([A-Za-z0-9_+-]*).*$");
    private static final Pattern TAG = Pattern.compile("^\\s*//\\s*tag::([A-Za-z0-9_.-]+)\\[]\\s*$");
    private static final Pattern END = Pattern.compile("^\\s*//\\s*end::([A-Za-z0-9_.-]+)\\[]\\s*$");

    /** A fenced java block of a page and the example it claims to be ({@code null} when unmarked). */
    record Snippet(Path page, int line, String name, String code) {

        String where() {
            return page.getFileName() + ":" + line;
        }
    }

    // ---- locating files: surefire runs in the module directory; an IDE may run from the repository root

    static Path moduleDir() {
        Path here = Path.of("").toAbsolutePath();
        if (Files.isDirectory(here.resolve("src/test/java/dev/zaelimiter/docs"))) {
            return here;
        }
        Path nested = here.resolve("zae-limiter-core");
        if (Files.isDirectory(nested.resolve("src/test/java/dev/zaelimiter/docs"))) {
            return nested;
        }
        throw new IllegalStateException("cannot find the zae-limiter-core module from " + here);
    }

    static Path docsDir() {
        return moduleDir().resolve("../docs").normalize();
    }

    /**
     * {@code DocsExamplesTest.java} and every other {@code *DocsExamplesTest.java} of this package, in this module and
     * in every other module of the repository ({@code *}{@code /src/test*}{@code /java/dev/zaelimiter/docs/}, the
     * Spring Boot lines' own test sources included), by path.
     */
    static List<Path> examplesSources() {
        List<Path> sources = new ArrayList<>();
        try (Stream<Path> modules = Files.list(moduleDir().resolve("..").normalize())) {
            for (Path module : modules.filter(Files::isDirectory).sorted().toList()) {
                for (Path dir : testSourceDirs(module)) {
                    try (Stream<Path> files = Files.list(dir)) {
                        files.filter(p -> p.getFileName().toString().endsWith("DocsExamplesTest.java")).sorted()
                                .forEach(sources::add);
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return sources;
    }

    /** The docs example directories of {@code module}: its test sources and each Spring Boot line's. */
    private static List<Path> testSourceDirs(Path module) throws IOException {
        Path src = module.resolve("src");
        if (!Files.isDirectory(src)) {
            return List.of();
        }
        try (Stream<Path> dirs = Files.list(src)) {
            return dirs.filter(d -> d.getFileName().toString().startsWith("test"))
                    .map(d -> d.resolve("java/dev/zaelimiter/docs")).filter(Files::isDirectory).sorted().toList();
        }
    }

    static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static List<Path> pages() {
        try (Stream<Path> files = Files.list(docsDir())) {
            return files.filter(p -> p.getFileName().toString().endsWith(".md")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    // ---- parsing

    /** Every java block of {@code page}, with the marker before it. Other fences are skipped whole. */
    static List<Snippet> snippets(Path page) {
        List<String> lines = lines(page);
        List<Snippet> snippets = new ArrayList<>();
        String pending = null;
        int pendingLine = 0;
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher marker = MARKER.matcher(line);
            Matcher fence = FENCE.matcher(line);
            if (marker.matches()) {
                if (pending != null) {
                    throw new AssertionError(page.getFileName() + ":" + pendingLine + ": marker '" + pending
                            + "' is not followed by a ```java block");
                }
                pending = marker.group(1);
                pendingLine = i + 1;
            } else if (fence.matches()) {
                String delimiter = fence.group(1);
                boolean java = fence.group(2).equalsIgnoreCase("java");
                if (pending != null && !java) {
                    throw new AssertionError(page.getFileName() + ":" + pendingLine + ": marker '" + pending
                            + "' is followed by a " + (fence.group(2).isEmpty() ? "plain" : fence.group(2))
                            + " block, not a ```java block");
                }
                int start = i + 1;
                int close = start;
                while (close < lines.size() && !lines.get(close).trim().equals(delimiter)) {
                    close++;
                }
                if (close == lines.size()) {
                    throw new AssertionError(page.getFileName() + ":" + (i + 1) + ": unclosed code block");
                }
                if (java) {
                    snippets.add(new Snippet(page, i + 1, pending, String.join("\n", lines.subList(start, close))));
                }
                pending = null;
                i = close;
            } else if (pending != null && !line.isBlank()) {
                throw new AssertionError(page.getFileName() + ":" + pendingLine + ": marker '" + pending
                        + "' is not followed by a ```java block");
            }
        }
        if (pending != null) {
            throw new AssertionError(page.getFileName() + ":" + pendingLine + ": marker '" + pending
                    + "' is not followed by a ```java block");
        }
        return snippets;
    }

    /** The tagged regions of every example test, by name; a name may be tagged once across them all. */
    static Map<String, String> taggedRegions() {
        Map<String, String> regions = new LinkedHashMap<>();
        for (Path source : examplesSources()) {
            taggedRegions(source, regions);
        }
        return regions;
    }

    private static void taggedRegions(Path source, Map<String, String> regions) {
        String file = source.getFileName().toString();
        List<String> lines = lines(source);
        String open = null;
        int from = 0;
        for (int i = 0; i < lines.size(); i++) {
            Matcher tag = TAG.matcher(lines.get(i));
            Matcher end = END.matcher(lines.get(i));
            if (tag.matches()) {
                if (open != null) {
                    throw new AssertionError(file + ":" + (i + 1) + ": tag '" + tag.group(1)
                            + "' opens inside '" + open + "'");
                }
                open = tag.group(1);
                from = i + 1;
            } else if (end.matches()) {
                if (!end.group(1).equals(open)) {
                    throw new AssertionError(file + ":" + (i + 1) + ": end '" + end.group(1)
                            + "' does not close " + (open == null ? "any tag" : "'" + open + "'"));
                }
                if (regions.put(open, String.join("\n", lines.subList(from, i))) != null) {
                    throw new AssertionError(file + ":" + (i + 1) + ": tag '" + open
                            + "' appears twice (in this file or another example test)");
                }
                open = null;
            }
        }
        if (open != null) {
            throw new AssertionError(file + ": tag '" + open + "' is never closed");
        }
    }

    /** Trailing whitespace, leading and trailing blank lines and the common indentation removed. */
    static String normalize(String code) {
        List<String> lines = code.lines().map(String::stripTrailing).collect(Collectors.toCollection(ArrayList::new));
        while (!lines.isEmpty() && lines.get(0).isEmpty()) {
            lines.remove(0);
        }
        while (!lines.isEmpty() && lines.get(lines.size() - 1).isEmpty()) {
            lines.remove(lines.size() - 1);
        }
        int indent = lines.stream().filter(l -> !l.isEmpty())
                .mapToInt(l -> l.length() - l.stripLeading().length()).min().orElse(0);
        return lines.stream().map(l -> l.isEmpty() ? l : l.substring(indent)).collect(Collectors.joining("\n"));
    }

    static List<Snippet> allSnippets() {
        return pages().stream().flatMap(page -> snippets(page).stream()).toList();
    }

    // ---- the checks

    @Test
    void theDocsAndTheirExamplesAreFound() {
        assertThat(docsDir()).isDirectory();
        assertThat(pages()).as("pages in %s", docsDir()).isNotEmpty();
        assertThat(allSnippets()).as("java examples in %s", docsDir()).isNotEmpty();
        assertThat(examplesSources()).as("example tests").contains(
                moduleDir().resolve("src/test/java/dev/zaelimiter/docs/DocsExamplesTest.java").normalize());
        assertThat(taggedRegions()).as("tagged regions in %s", examplesSources()).isNotEmpty();
    }

    @TestFactory
    Stream<DynamicTest> everyJavaBlockIsATaggedExampleVerbatim() {
        Map<String, String> regions = taggedRegions();
        return allSnippets().stream().map(snippet -> DynamicTest.dynamicTest(
                snippet.where() + " " + (snippet.name() == null ? "(unmarked)" : snippet.name()), () -> {
                    assertThat(snippet.name())
                            .as("%s: a ```java block needs <!-- example: NAME --> right before it", snippet.where())
                            .isNotNull();
                    assertThat(regions)
                            .as("%s: no example test has a region // tag::%s[]", snippet.where(), snippet.name())
                            .containsKey(snippet.name());
                    assertThat(normalize(snippet.code()))
                            .as("%s: example '%s' differs from its tagged region in the example tests",
                                    snippet.where(), snippet.name())
                            .isEqualTo(normalize(regions.get(snippet.name())));
                }));
    }

    @Test
    void everyExampleNameIsUsedOnceInTheDocs() {
        List<Snippet> snippets = allSnippets();
        Set<String> seen = new TreeSet<>();
        List<String> duplicates = new ArrayList<>();
        for (Snippet snippet : snippets) {
            if (snippet.name() != null && !seen.add(snippet.name())) {
                duplicates.add(snippet.name() + " again at " + snippet.where());
            }
        }
        assertThat(duplicates).as("examples shown twice").isEmpty();
        Set<String> unused = new TreeSet<>(taggedRegions().keySet());
        unused.removeAll(seen);
        assertThat(unused).as("tagged regions of the example tests that no page shows").isEmpty();
    }

    @Test
    void normalizeIgnoresIndentationAndTrailingSpace() {
        assertThat(normalize("\n        a();  \n\n            b();\n        c();\n   \n"))
                .isEqualTo("a();\n\n    b();\nc();");
    }
}
