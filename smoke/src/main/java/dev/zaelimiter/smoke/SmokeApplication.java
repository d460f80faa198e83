package dev.zaelimiter.smoke;

import dev.zaelimiter.spring.Consume;
import dev.zaelimiter.spring.RateLimited;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.stereotype.Service;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * A new application as a user writes it on any supported Spring Boot line: the starter, the web and actuator
 * starters, one HTTP filter rule (in {@code application.yaml}) and one {@code @RateLimited} method.
 */
@SpringBootApplication
public class SmokeApplication {

    public static void main(String[] args) {
        SpringApplication.run(SmokeApplication.class, args);
    }

    /** {@code /api/**} is limited by the filter rule; {@code /reports/{user}} by the service's annotation. */
    @RestController
    static class Routes {

        private final ReportService reports;

        Routes(ReportService reports) {
            this.reports = reports;
        }

        @GetMapping("/api/hello")
        String hello() {
            return "hello";
        }

        @GetMapping("/reports/{user}")
        String report(@PathVariable String user) {
            return reports.render(user);
        }
    }

    /** One report per user an hour. */
    @Service
    static class ReportService {

        @RateLimited(resource = "reports", entity = "#user", consume = @Consume(limit = "requests"))
        public String render(String user) {
            return "report for " + user;
        }
    }
}
