package dev.zaelimiter.store.redis;

import org.junit.jupiter.api.Test;

import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Modifier;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis module exports its entry points only, as the core's {@code PublicSurfaceTest} requires of the stores:
 * every other type of {@code dev.zaelimiter.store.redis} is package-private, and the module adds no other package.
 */
class RedisPublicSurfaceTest {

    @Test
    void exportsOnlyItsEntryPoints() throws Exception {
        Path root = Path.of(RedisStore.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Set<String> packages = new TreeSet<>();
        Set<String> exported = new TreeSet<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = root.relativize(file).toString().replace('\\', '/');
                if (!name.endsWith(".class") || name.endsWith("package-info.class")
                        || name.equals("module-info.class")) {
                    continue;
                }
                Class<?> type = Class.forName(name.substring(0, name.length() - 6).replace('/', '.'), false,
                        getClass().getClassLoader());
                packages.add(type.getPackageName());
                if (!type.isAnonymousClass() && !type.isLocalClass() && !type.isSynthetic() && exposed(type)) {
                    exported.add(type.getName());
                }
            }
        }
        try (InputStream in = Files.newInputStream(root.resolve("module-info.class"))) {
            assertThat(ModuleDescriptor.read(in).exports()).extracting(ModuleDescriptor.Exports::source)
                    .containsExactly("dev.zaelimiter.store.redis");
        }
        assertThat(packages).containsExactly("dev.zaelimiter.store.redis");
        assertThat(exported).containsExactly("dev.zaelimiter.store.redis.RedisStore",
                "dev.zaelimiter.store.redis.RedisStore$Builder");
    }

    private static boolean exposed(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (!Modifier.isPublic(t.getModifiers())) {
                return false;
            }
        }
        return true;
    }
}
