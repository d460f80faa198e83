package dev.zaelimiter.autoconfigure.web;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.http.ProblemDetail;
import org.springframework.util.ClassUtils;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How the filters write their problem bodies on Spring Boot 4: with the application's Jackson 3 {@code JsonMapper},
 * or with its Jackson 2 {@code ObjectMapper} where it prefers Jackson 2 (Spring Boot's
 * {@code spring.http.converters.preferred-json-mapper}, {@code spring.http.codecs.preferred-json-mapper} for WebFlux)
 * or has only Jackson 2.
 */
final class ProblemWriters {

    private static final String JACKSON_3 = "tools.jackson.databind.json.JsonMapper";
    private static final String JACKSON_2 = "com.fasterxml.jackson.databind.ObjectMapper";

    private ProblemWriters() {
    }

    /** For the servlet filter of an application. */
    static Function<ProblemDetail, byte[]> servlet(BeanFactory beanFactory, Environment environment) {
        return forApplication(beanFactory, environment.getProperty("spring.http.converters.preferred-json-mapper"),
                "spring-boot-starter-webmvc");
    }

    /** For the WebFlux filter of an application. */
    static Function<ProblemDetail, byte[]> reactive(BeanFactory beanFactory, Environment environment) {
        return forApplication(beanFactory, environment.getProperty("spring.http.codecs.preferred-json-mapper"),
                "spring-boot-starter-webflux");
    }

    /** For a filter made outside Spring: a plain mapper. */
    static Function<ProblemDetail, byte[]> standalone() {
        return choose(ProblemWriters.class.getClassLoader(), null, "tools.jackson.core:jackson-databind",
                "spring-boot-starter-webmvc",
                () -> new Jackson3ProblemWriter(new tools.jackson.databind.json.JsonMapper()),
                () -> new JacksonProblemWriter(new com.fasterxml.jackson.databind.ObjectMapper()));
    }

    private static Function<ProblemDetail, byte[]> forApplication(BeanFactory beanFactory, String preferred,
            String broughtBy) {
        ClassLoader classLoader = beanFactory instanceof ConfigurableBeanFactory configurable
                ? configurable.getBeanClassLoader() : ProblemWriters.class.getClassLoader();
        return choose(classLoader, preferred, "spring-boot-starter-jackson", broughtBy,
                () -> Jackson3ProblemWriter.of(beanFactory), () -> JacksonProblemWriter.of(beanFactory));
    }

    /**
     * The one place that asks which Jackson is present: Jackson 3, unless only Jackson 2 is there or
     * {@code preferred} says {@code jackson2}; without either, a failure naming {@code artifact}.
     */
    private static Function<ProblemDetail, byte[]> choose(ClassLoader classLoader, String preferred, String artifact,
            String broughtBy, Supplier<Function<ProblemDetail, byte[]>> jackson3,
            Supplier<Function<ProblemDetail, byte[]>> jackson2) {
        boolean has3 = ClassUtils.isPresent(JACKSON_3, classLoader);
        boolean has2 = ClassUtils.isPresent(JACKSON_2, classLoader);
        if (has2 && (!has3 || "jackson2".equals(preferred))) {
            return jackson2.get();
        }
        if (has3) {
            return jackson3.get();
        }
        throw MissingJackson.exception(artifact, broughtBy);
    }
}
