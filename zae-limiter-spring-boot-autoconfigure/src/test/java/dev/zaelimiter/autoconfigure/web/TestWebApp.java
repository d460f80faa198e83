package dev.zaelimiter.autoconfigure.web;

import dev.zaelimiter.testing.MutableClock;
import dev.zaelimiter.testing.SwitchableStore;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.servlet.config.annotation.EnableWebMvc;

/** A tiny MVC application for the filter tests: a controller, a controllable clock, and a store that can fail. */
final class TestWebApp {

    private TestWebApp() {
    }

    @Configuration(proxyBeanMethods = false)
    @EnableWebMvc
    @Import(Controller.class)
    static class Mvc {

        @Bean
        MutableClock clock() {
            return MutableClock.start();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class FailingStoreConfig {

        @Bean
        SwitchableStore limiterStore() {
            return new SwitchableStore();
        }
    }

    @RestController
    static class Controller {

        @GetMapping({"/api/items", "/api/special/x", "/public/hello", "/admin/x"})
        String items() {
            return "ok";
        }

        @PostMapping("/api/items")
        String create() {
            return "created";
        }

        @GetMapping("/api/boom")
        String boom() {
            throw new IllegalStateException("boom");
        }
    }
}
