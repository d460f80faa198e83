package dev.zaelimiter.autoconfigure.web;

import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.http.ProblemDetail;
import org.springframework.util.ClassUtils;

import java.util.function.Function;

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
        ClassLoader classLoader = ProblemWriters.class.getClassLoader();
        if (ClassUtils.isPresent(JACKSON_3, classLoader)) {
            return new Jackson3ProblemWriter(new tools.jackson.databind.json.JsonMapper());
        }
        if (ClassUtils.isPresent(JACKSON_2, classLoader)) {
            return new JacksonProblemWriter(new com.fasterxml.jackson.databind.ObjectMapper());
        }
        throw MissingJackson.exception("tools.jackson.core:jackson-databind", "spring-boot-starter-webmvc");
    }

    private static Function<ProblemDetail, byte[]> forApplication(BeanFactory beanFactory, String preferred,
            String broughtBy) {
        ClassLoader classLoader = beanFactory instanceof ConfigurableBeanFactory configurable
                ? configurable.getBeanClassLoader() : ProblemWriters.class.getClassLoader();
        boolean jackson3 = ClassUtils.isPresent(JACKSON_3, classLoader);
        boolean jackson2 = ClassUtils.isPresent(JACKSON_2, classLoader);
        if (jackson2 && (!jackson3 || "jackson2".equals(preferred))) {
            return JacksonProblemWriter.of(beanFactory);
        }
        if (jackson3) {
            return Jackson3ProblemWriter.of(beanFactory);
        }
        throw MissingJackson.exception("spring-boot-starter-jackson", broughtBy);
    }
}
