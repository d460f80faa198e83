package dev.zaelimiter;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What users can rely on: the API in {@code dev.zaelimiter}, the store SPI in {@code dev.zaelimiter.store}, and the
 * in-memory store's entry point (the DynamoDB store is a module of its own), as the module descriptor exports them. Every other public type lives under
 * {@code dev.zaelimiter.internal}, and no public or protected member of an exported type mentions an internal type,
 * so the engine can change without breaking users.
 */
class PublicSurfaceTest {

    private static final Set<String> EXPORTED = Set.of("dev.zaelimiter", "dev.zaelimiter.store",
            "dev.zaelimiter.store.memory");
    private static final String INTERNAL = "dev.zaelimiter.internal";

    @Test
    void everyPublicTypeIsInAnExportedOrAnInternalPackage() throws Exception {
        Set<String> packages = new TreeSet<>();
        for (Class<?> type : publicTypes()) {
            packages.add(type.getPackageName());
        }
        assertThat(packages).allMatch(p -> EXPORTED.contains(p) || p.equals(INTERNAL) || p.startsWith(INTERNAL + "."));
        assertThat(packages).containsAll(EXPORTED);
    }

    @Test
    void theModuleDescriptorExportsTheApiAndTheSpiAndLendsTheEngineOnlyToStores() throws Exception {
        ModuleDescriptor module;
        try (InputStream in = Files.newInputStream(classesRoot().resolve("module-info.class"))) {
            module = ModuleDescriptor.read(in);
        }
        Set<String> open = new TreeSet<>();
        for (ModuleDescriptor.Exports export : module.exports()) {
            if (export.isQualified()) {
                assertThat(export.source()).startsWith(INTERNAL);
                assertThat(export.targets()).allMatch(target -> target.startsWith("dev.zaelimiter."));
            } else {
                open.add(export.source());
            }
        }
        assertThat(open).isEqualTo(EXPORTED);
        assertThat(module.opens()).isEmpty();
    }

    @Test
    void theStoresExportOnlyTheirEntryPoints() throws Exception {
        Set<String> stores = new TreeSet<>();
        for (Class<?> type : publicTypes()) {
            if (type.getPackageName().startsWith("dev.zaelimiter.store.")) {
                stores.add(type.getName());
            }
        }
        assertThat(stores).containsExactly("dev.zaelimiter.store.memory.InMemoryStore");
    }

    @Test
    void limitIsAPlainValueWithoutTheEnginesTimeEvaluation() {
        Set<String> publicMembers = new TreeSet<>();
        for (Method m : Limit.class.getDeclaredMethods()) {
            if (Modifier.isPublic(m.getModifiers())) {
                publicMembers.add(m.getName());
            }
        }
        for (Field f : Limit.class.getDeclaredFields()) {
            if (Modifier.isPublic(f.getModifiers())) {
                publicMembers.add(f.getName());
            }
        }
        assertThat(publicMembers).doesNotContain("parametersAt", "capacityMilli", "refillAmountMilli",
                "refillPeriodMillis", "maxCapacityMilli", "nextChangeAfter", "nextResetAfter", "MILLI", "NEVER");
        assertThat(Limit.class.getDeclaredClasses()).noneMatch(c -> Modifier.isPublic(c.getModifiers()));
    }

    @Test
    void noExportedSignatureMentionsAnInternalType() throws Exception {
        List<String> leaks = new ArrayList<>();
        for (Class<?> type : publicTypes()) {
            if (!EXPORTED.contains(type.getPackageName())) {
                continue;
            }
            check(type.getName() + " supertype", type.getGenericSuperclass(), leaks);
            for (Type iface : type.getGenericInterfaces()) {
                check(type.getName() + " interface", iface, leaks);
            }
            for (Method m : type.getDeclaredMethods()) {
                if (visible(m.getModifiers()) && !m.isSynthetic()) {
                    check(type.getName() + "." + m.getName(), m.getGenericReturnType(), leaks);
                    for (Type p : m.getGenericParameterTypes()) {
                        check(type.getName() + "." + m.getName() + " parameter", p, leaks);
                    }
                }
            }
            for (Constructor<?> c : type.getDeclaredConstructors()) {
                if (visible(c.getModifiers())) {
                    for (Type p : c.getGenericParameterTypes()) {
                        check(type.getName() + " constructor parameter", p, leaks);
                    }
                }
            }
            for (Field f : type.getDeclaredFields()) {
                if (visible(f.getModifiers())) {
                    check(type.getName() + "." + f.getName(), f.getGenericType(), leaks);
                }
            }
            if (type.isRecord()) {
                for (RecordComponent rc : type.getRecordComponents()) {
                    check(type.getName() + "." + rc.getName(), rc.getGenericType(), leaks);
                }
            }
        }
        assertThat(leaks).isEmpty();
    }

    private static boolean visible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    private static void check(String where, Type type, List<String> leaks) {
        if (type != null && type.getTypeName().contains(INTERNAL + ".")) {
            leaks.add(where + ": " + type.getTypeName());
        }
    }

    private static Path classesRoot() throws URISyntaxException {
        return Path.of(RateLimiter.class.getProtectionDomain().getCodeSource().getLocation().toURI());
    }

    /** The public top-level and nested types compiled from the core module's main sources. */
    static List<Class<?>> publicTypes() throws IOException, URISyntaxException, ClassNotFoundException {
        Path root = classesRoot();
        List<Class<?>> types = new ArrayList<>();
        try (Stream<Path> files = Files.walk(root)) {
            for (Path file : (Iterable<Path>) files::iterator) {
                String name = root.relativize(file).toString();
                if (!name.endsWith(".class") || name.endsWith("package-info.class")
                        || name.equals("module-info.class")) {
                    continue;
                }
                Class<?> type = Class.forName(name.substring(0, name.length() - 6).replace('/', '.').replace('\\', '.'),
                        false, PublicSurfaceTest.class.getClassLoader());
                if (!type.isAnonymousClass() && !type.isLocalClass() && !type.isSynthetic() && isExposed(type)) {
                    types.add(type);
                }
            }
        }
        return types;
    }

    private static boolean isExposed(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (!Modifier.isPublic(t.getModifiers())) {
                return false;
            }
        }
        return true;
    }
}
