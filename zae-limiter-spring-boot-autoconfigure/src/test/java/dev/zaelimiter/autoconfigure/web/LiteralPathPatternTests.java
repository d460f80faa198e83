package dev.zaelimiter.autoconfigure.web;

import org.junit.jupiter.api.Test;
import org.springframework.http.server.PathContainer;
import org.springframework.http.server.RequestPath;
import org.springframework.web.util.pattern.PathPattern;
import org.springframework.web.util.pattern.PathPatternParser;

import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link LiteralPathPattern} answers exactly as Spring's {@link PathPattern} on the parsed path, for every URI it
 * accepts, and sends every other pattern and URI to Spring.
 */
class LiteralPathPatternTests {

    private static final List<String> LITERAL_PATTERNS = List.of("/", "/**", "/api", "/api/**", "/api/items",
            "/api/items/**", "/v1/api-x.y_z~/**", "/API/**", "/a/b/c");

    private static final List<String> OTHER_PATTERNS = List.of("/api/*", "/api/{id}", "/api/x*", "/a?c",
            "/api/", "/api/items/", "//**", "/api//items", "/*", "/api/{*rest}");

    private static final List<String> URIS = List.of("/", "/api", "/api/", "/api/items", "/api/items/", "/apix",
            "/api/items/1", "/api/items/1/2", "/API/items", "/api//items", "/api/it%65ms", "/api;x=1/items",
            "/api/items;v=1", "/v1/api-x.y_z~", "/v1/api-x.y_z~/q", "/a/b/c", "/a/b/c/d", "/a/b", "/ap", "/api.json",
            "//", "/ctx", "/ctx/", "/ctx/api", "/ctx/api/items", "/ctxx/api", "", "api");

    private static final List<String> CONTEXT_PATHS = List.of("", "/", "/ctx");

    private static PathPattern parse(String pattern) {
        return PathPatternParser.defaultInstance.parse(pattern);
    }

    /** What the filter matched on before: the pattern on the path Spring parses. */
    private static Boolean springMatches(PathPattern pattern, String uri, String contextPath) {
        PathContainer path;
        try {
            path = RequestPath.parse(uri, contextPath).pathWithinApplication();
        } catch (RuntimeException invalidContextPath) {
            return null;
        }
        return pattern.matches(path);
    }

    @Test
    void literalPatternsAnswerAsSpringDoesOnEveryUriTheyAccept() {
        List<String> compared = new ArrayList<>();
        for (String text : LITERAL_PATTERNS) {
            PathPattern pattern = parse(text);
            LiteralPathPattern literal = LiteralPathPattern.of(pattern);
            assertThat(literal).as(text).isNotNull();
            for (String contextPath : CONTEXT_PATHS) {
                for (String uri : URIS) {
                    int from = LiteralPathPattern.start(uri, contextPath);
                    if (from < 0) {
                        continue;
                    }
                    assertThat(literal.matches(uri, from))
                            .as("%s on %s (context path '%s')", text, uri, contextPath)
                            .isEqualTo(springMatches(pattern, uri, contextPath));
                    compared.add(text + " " + uri);
                }
            }
        }
        assertThat(compared).hasSizeGreaterThan(300);
    }

    @Test
    void patternsWithWildcardsVariablesOrOddSlashesAreLeftToSpring() {
        for (String text : OTHER_PATTERNS) {
            assertThat(LiteralPathPattern.of(parse(text))).as(text).isNull();
        }
    }

    @Test
    void urisThatNeedDecodingOrHaveOddSlashesAreLeftToSpring() {
        for (String uri : List.of("/api/it%65ms", "/api;x=1/items", "/api/items;v=1", "/api//items", "//", "/api/",
                "", "api")) {
            assertThat(LiteralPathPattern.start(uri, "")).as(uri).isEqualTo(-1);
        }
        assertThat(LiteralPathPattern.start(null, "")).isEqualTo(-1);
        assertThat(LiteralPathPattern.start("/api/items", "")).isZero();
        assertThat(LiteralPathPattern.start("/api/items", "/")).isZero();
    }

    @Test
    void theContextPathIsSkippedOnlyWhenItEndsAtASegment() {
        assertThat(LiteralPathPattern.start("/ctx/api", "/ctx")).isEqualTo(4);
        assertThat(LiteralPathPattern.start("/ctx", "/ctx")).as("empty path within the application").isEqualTo(-1);
        assertThat(LiteralPathPattern.start("/ctxx/api", "/ctx")).as("Spring rejects it").isEqualTo(-1);
        assertThat(LiteralPathPattern.start("/other/api", "/ctx")).isEqualTo(-1);
        assertThat(LiteralPathPattern.start("/ctx/api", "/ctx/")).as("Spring rejects it").isEqualTo(-1);
    }
}
