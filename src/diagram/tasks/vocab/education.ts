import type { DomainVocab } from './types.ts';

export const education: DomainVocab = {
  domain: 'education',
  verbs: ['prepares', 'assigns', 'grades', 'unlocks', 'informs', 'leads to', 'submits to'],
  train: {
    chains: [
      'course design :: Learning Goals > Syllabus > Lesson Plans > Lectures > Homework > Final Exam > Grades',
      'thesis process :: Topic Proposal > Literature Review > Methodology > Data Collection > Analysis > Draft Chapters > Advisor Feedback > Thesis Defense > Graduation',
      'college application :: Entrance Exam > Personal Essay > Recommendation Letters > Application Portal > Admissions Review > Acceptance Letter > Enrollment',
      'study workflow :: Skim Chapter > Take Notes > Summarize > Flashcards > Quiz Yourself',
    ],
    cycles: [
      'school year :: Fall Term > Winter Break > Spring Term > Summer Vacation',
      'spaced repetition :: Learn Card > Short Interval Review > Medium Interval Review > Long Interval Review',
      'teaching feedback loop :: Teach Lesson > Formative Quiz > Review Results > Adjust Instruction',
    ],
    fans: [
      'teacher assignments :: Homeroom Teacher => Math Group, Reading Group, Science Group, Art Group, Music Group, Robotics Club, Debate Team, Chess Club, Drama Club, Choir',
      'final grade :: Homework Score, Quiz Average, Midterm Exam, Lab Reports, Participation, Term Project => Final Grade',
    ],
    trees: [
      'university structure :: University > Faculty of Science (Physics Department, Biology Department, Chemistry Department), Faculty of Arts (History Department, Music Department), School of Engineering (Civil Engineering, Electrical Engineering) @ includes',
      'math curriculum :: Mathematics > Algebra (Linear Equations, Polynomials), Geometry (Triangles, Circles), Calculus (Limits, Derivatives, Integrals) @ covers',
    ],
    decisions: [
      'exam grading :: Take Exam > Grade Paper > [Score Above 60?] Pass Course > Issue Certificate | Schedule Retake > Tutoring Session',
      'library checkout :: Find Book > [Book Available?] Borrow Book | Place Hold > Get Notification',
    ],
    layered: [
      'online learning platform :: Learners: Student Portal, Parent App | Services: Course Service, Gradebook Service | Data: Course Content Store, Gradebook Database',
    ],
    mixed: [
      'research group :: Principal Investigator {PI} > Postdoc, Lab Manager; Postdoc > PhD Student A, PhD Student B, Joint Paper; Lab Manager > Lab Equipment; PhD Student A > Lab Equipment, Joint Paper; PhD Student B > Lab Equipment, Joint Paper',
    ],
  },
  ood: {
    chains: [
      'MOOC enrollment :: Course Landing Page > Sign-Up Form > Welcome Video > Module One > Peer Assignment > Capstone Project > Certificate',
      'science fair :: Pick Question > Background Reading > Build Apparatus > Run Trials > Make Poster > Judging > Ribbon Ceremony',
      'student visa :: Admission Offer > Tuition Deposit > Visa Interview > Flight Booking > Campus Arrival > Orientation Week > First Lecture > Midterm Break > Finals Week > Summer Internship',
    ],
    cycles: [
      'lesson study :: Plan Lesson Together > Observe Live Lesson > Debrief Session > Revise Lesson',
      'Kolb learning cycle :: Concrete Experience > Reflective Observation > Abstract Conceptualization > Active Experimentation',
    ],
    fans: [
      'classroom roles :: Class Captain => Board Cleaner, Plant Waterer, Line Leader, Paper Collector, Door Holder, Light Monitor, Snack Helper, Library Runner, Recycling Helper',
      'admission inputs :: Transcript, Essay Score, Interview Rating, Portfolio, Test Scores, Reference Letter => Admission Committee',
    ],
    trees: [
      'language family :: Indo-European > Germanic (English, German, Dutch), Romance (Spanish, French, Italian), Slavic (Russian, Polish) @ includes',
    ],
    decisions: [
      'homework submission :: Finish Homework > Upload File > [Before Deadline?] Mark On Time > Queue for Grading | Apply Late Penalty',
    ],
    layered: [
      'campus IT :: Users: Faculty Laptops, Student Tablets | Network: Campus Wi-Fi | Systems: Learning Management System {LMS}, Library Catalog, Email Server',
    ],
    mixed: [
      'curriculum prerequisites :: Intro Programming > Data Structures, Discrete Math; Discrete Math > Algorithms; Data Structures > Algorithms, Operating Systems Course; Algorithms > Compilers Course, Machine Learning Course; Linear Algebra > Machine Learning Course',
    ],
  },
};
