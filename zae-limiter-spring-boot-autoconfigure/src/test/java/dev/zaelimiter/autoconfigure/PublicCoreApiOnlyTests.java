package dev.zaelimiter.autoconfigure;

import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The auto-configuration uses only the library's public API: no compiled class of this module refers to a type in
 * {@code dev.zaelimiter.internal}, which may change in any release. Reads the constant pools of the classes the
 * build compiled from the main sources (every reference to another class is spelled there).
 */
class PublicCoreApiOnlyTests {

    private static final byte[] INTERNAL = "dev/zaelimiter/internal/".getBytes(StandardCharsets.UTF_8);

    @Test
    void noMainClassRefersToTheCoresInternalPackages() throws Exception {
        Path classes = Path.of(ZaeLimiterAutoConfiguration.class.getProtectionDomain().getCodeSource()
                .getLocation().toURI());
        List<Path> compiled;
        try (Stream<Path> files = Files.walk(classes)) {
            compiled = files.filter(f -> f.toString().endsWith(".class")).toList();
        }
        assertThat(compiled).as("compiled main classes under %s", classes).hasSizeGreaterThan(50);
        List<String> offenders = compiled.stream().filter(PublicCoreApiOnlyTests::refersToInternal)
                .map(f -> classes.relativize(f).toString()).sorted().toList();
        assertThat(offenders).as("classes referring to dev.zaelimiter.internal").isEmpty();
    }

    private static boolean refersToInternal(Path classFile) {
        try {
            return indexOf(Files.readAllBytes(classFile), INTERNAL) >= 0;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i <= haystack.length - needle.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
