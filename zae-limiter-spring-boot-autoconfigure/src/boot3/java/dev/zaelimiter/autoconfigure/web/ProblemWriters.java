package dev.zaelimiter.autoconfigure.web;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.http.ProblemDetail;
import org.springframework.util.ClassUtils;

import java.util.function.Function;
import java.util.function.Supplier;

/**
 * How the filters write their problem bodies on Spring Boot 3.5: with Jackson 2, the application's
 * {@code ObjectMapper} when there is one.
 */
final class ProblemWriters {

    private static final String JACKSON_2 = "com.fasterxml.jackson.databind.ObjectMapper";

    private ProblemWriters() {
    }

    /** For the servlet filter of an application. */
    static Function<ProblemDetail, byte[]> servlet(BeanFactory beanFactory, Environment environment) {
        return forApplication(beanFactory, "spring-boot-starter-web");
    }

    /** For the WebFlux filter of an application. */
    static Function<ProblemDetail, byte[]> reactive(BeanFactory beanFactory, Environment environment) {
        return forApplication(beanFactory, "spring-boot-starter-webflux");
    }

    /** For a filter made outside Spring: a plain mapper. */
    static Function<ProblemDetail, byte[]> standalone() {
        return choose(ProblemWriters.class.getClassLoader(), "com.fasterxml.jackson.core:jackson-databind",
                "spring-boot-starter-web",
                () -> new JacksonProblemWriter(new com.fasterxml.jackson.databind.ObjectMapper()));
    }

    private static Function<ProblemDetail, byte[]> forApplication(BeanFactory beanFactory, String broughtBy) {
        ClassLoader classLoader = beanFactory instanceof ConfigurableBeanFactory configurable
                ? configurable.getBeanClassLoader() : ProblemWriters.class.getClassLoader();
        return choose(classLoader, "spring-boot-starter-json", broughtBy, () -> JacksonProblemWriter.of(beanFactory));
    }

    /** The one place that asks whether Jackson 2 is present; without it, a failure naming {@code artifact}. */
    private static Function<ProblemDetail, byte[]> choose(ClassLoader classLoader, String artifact, String broughtBy,
            Supplier<Function<ProblemDetail, byte[]>> jackson2) {
        if (!ClassUtils.isPresent(JACKSON_2, classLoader)) {
            throw MissingJackson.exception(artifact, broughtBy);
        }
        return jackson2.get();
    }
}
