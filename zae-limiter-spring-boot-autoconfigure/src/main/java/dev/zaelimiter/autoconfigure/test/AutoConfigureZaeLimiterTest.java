package dev.zaelimiter.autoconfigure.test;

import org.springframework.boot.autoconfigure.ImportAutoConfiguration;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * On a {@code @SpringBootTest} (or a test slice) of an application that uses zae-limiter: the limiter runs on an
 * in-memory store, whatever store the application uses in production, with its declarations applied as usual; its
 * clock is a {@link ZaeLimiterTestClock} that stands still until the test moves it; and after every test method its
 * buckets are full again, its pauses ended and its clock back at the start. Inject {@link ZaeLimiterTestSupport} to
 * move the clock or reset in the middle of a test. A {@code Clock} or {@code LimiterStore} bean of the application's
 * own is left in place.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ImportAutoConfiguration(ZaeLimiterTestAutoConfiguration.class)
public @interface AutoConfigureZaeLimiterTest {
}
